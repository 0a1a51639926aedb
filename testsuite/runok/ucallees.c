/* process("PATH").function("f").callee("g")[.call|.return] and .callees(N) over DWARF 4's
 * out-of-line call sites (DW_TAG_GNU_call_site: gcc -gdwarf-4 -O2, see ucallees.cflags):
 * route calls step once, twice from main (two call sites); other calls step too, which
 * route.callee("step") does not take; main.callees(2) takes route at both its sites and
 * step under each. */
__attribute__((noinline, noipa)) int step(int v)
{
	return v * 2 + 1;
}

__attribute__((noinline, noipa)) int route(int x)
{
	return step(x) + x;
}

__attribute__((noinline, noipa)) int other(int x)
{
	return step(x + 100) - 1;
}

int main(void)
{
	int a = route(1);
	int b = route(5);

	return a + b + other(1) == 222 ? 0 : 1;
}
