/* process("PATH").function probes reading this program's variables from its DWARF
 * (-g -O2, see uvars_o2.cflags; f neither inlined nor analysed across calls: noipa):
 * parameters, a local, a struct through a pointer, globals. */
struct s {
	int a;
	char *name;
	int arr[3];
};

int glob = 42;
static int sglob = 5;

__attribute__((noipa)) int f(int x, struct s *p)
{
	int local = x * 2;

	__asm__ volatile("" ::: "memory");
	return x + p->a + local + sglob - 5;
}

int main(void)
{
	char name[] = "hi";
	struct s v = { 3, name, { 7, 8, 9 } };

	return f(4, &v) == 15 ? 0 : 1;
}
