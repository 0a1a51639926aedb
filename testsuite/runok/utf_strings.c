// SPDX-License-Identifier: GPL-2.0-or-later
// UTF-16 and UTF-32 strings for runok/tapset_user_utf: each is written to fd -1 (the call
// fails, the probe reads the buffer), the count telling which it is.
#include <stdint.h>
#include <unistd.h>

/* "hé€😀" and its NUL: U+0068 U+00E9 U+20AC U+1F600 */
static const uint16_t good16[] = { 0x68, 0xe9, 0x20ac, 0xd83d, 0xde00, 0 };
static const uint32_t good32[] = { 0x68, 0xe9, 0x20ac, 0x1f600, 0 };
/* "a", then a lone low surrogate */
static const uint16_t bad16[] = { 0x61, 0xdc00, 0 };
/* "a", then past U+10FFFF */
static const uint32_t bad32[] = { 0x61, 0x110000, 0 };
/* a high surrogate followed by "b": the surrogate alone, which is no character */
static const uint16_t lone16[] = { 0xd800, 0x62, 0 };

int main(void)
{
	return write(-1, good16, 1) + write(-1, good32, 2) + write(-1, bad16, 3) +
	       write(-1, bad32, 4) + write(-1, lone16, 5) < 0 ? 0 : 1;
}
