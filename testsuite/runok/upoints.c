/* process("PATH").function("f@FILE"), .function("f").inline and .statement ranges over
 * this program's DWARF (-g -O2, see upoints.cflags; static): add_one is inlined in both
 * callers (twice's two calls share one entry), twice and thrice are out of line. */
/* No output: the exit status says whether the calls computed what they should. */

static int counter;

static inline __attribute__((always_inline)) int add_one(int v)
{
	counter++;
	return v + 1;
}

__attribute__((noipa)) int twice(int x)
{
	int y = add_one(x);

	y = add_one(y * 2);
	return y;
}

__attribute__((noipa)) int thrice(int x)
{
	return add_one(x) * 3;
}

int main(void)
{
	int r = twice(3) + thrice(4);

	return r == 24 && counter == 3 ? 0 : 1;
}
