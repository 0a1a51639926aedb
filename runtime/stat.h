/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A statistics aggregate, fed with <<<: what frames, globals and arrays hold of one. Its
 * operations are in maps.h. */
#ifndef TAP_STAT_H
#define TAP_STAT_H

#include <linux/types.h>

struct tap_stat {
	int64_t count, sum, min, max;
};

#endif
