/* process("PATH").function probes reading this program's variables from its DWARF
 * (-g -O0, see uvars_o0.cflags; a PIE linked to its library uvars_o0.lib.c, built as
 * /tmp/tapster-runok/libuvars_o0.so): parameters, a local, a struct through a pointer,
 * globals. */
struct s {
	int a;
	char *name;
	int arr[3];
};

int glob = 42;
static int sglob = 5;

int g(struct s *p, int k);

__attribute__((noipa)) int f(int x, struct s *p)
{
	int local = x * 2;

	__asm__ volatile("" ::: "memory");
	return x + p->a + local + sglob - 5;
}

int main(void)
{
	/* On the stack: in memory when a probe reads it (a constant might be in a page not
	 * yet faulted in, which user_string() cannot read). */
	char name[] = "hi";
	struct s v = { 3, name, { 7, 8, 9 } };

	return f(4, &v) == 15 && g(&v, 2) == 19 ? 0 : 1;
}
