/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The first runtime header a generated module includes, before its own declarations: the
 * limits and the pieces that do not depend on the script. The generated module then defines
 * `union tap_frame` and includes "context.h", its probe bodies, and last "module.h".
 */
#ifndef TAP_RUNTIME_H
#define TAP_RUNTIME_H

/* The runtime is a library of static functions; a module uses the ones its script needs. */
#pragma GCC diagnostic ignored "-Wunused-function"

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/types.h>
#include <linux/version.h>	/* LINUX_VERSION_CODE for guru code, as stap's runtime has it */

#include "defaults.h"
#include "compat.h"
#include "session.h"
#include "stat.h"

#endif
