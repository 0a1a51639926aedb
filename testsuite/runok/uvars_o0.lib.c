/* The shared library of uvars_o0.c (-g -O0, position-independent): a function whose
 * variables a process("LIB.so").function probe reads, and a global of the library. */
struct s {
	int a;
	char *name;
	int arr[3];
};

int lib_glob = 11;

int g(struct s *p, int k)
{
	return p->arr[k] + lib_glob - 1;
}
