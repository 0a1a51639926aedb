/* process("PATH").function("f").label("L") and .callee("g")/.callees over this program's
 * DWARF (-g -O0, see ulabels.cflags; static): route has the labels "small" and "big" (gcc
 * emits big's DIE first), and calls step out of line, which has add_one inlined (step's
 * callee; route's call of step is no callee stap 4.8 finds in DWARF 5). */
static int counter;

static inline __attribute__((always_inline)) int add_one(int v)
{
	counter++;
	return v + 1;
}

__attribute__((noinline)) int step(int v)
{
	return add_one(v) * 2;
}

__attribute__((noinline)) int route(int x)
{
	int y = 0;

	if (x > 2)
		goto big;
small:
	y += step(x);
	return y;
big:
	y = x * 10;
	if (y > 1000)
		goto small;
	return y;
}

int main(void)
{
	return route(1) + route(5) == 54 && counter == 1 ? 0 : 1;
}
