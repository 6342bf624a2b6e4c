/*
 * test_emit.c - emit_seccomp and validate_seccomp on hand-built rule
 * sets, checked through the interpreter: x32 and i386 killed, unknown
 * numbers ENOSYS, clone3/io_uring ENOSYS unless named (rules added as
 * check/ adds them, and refused without them), 32-bit masked
 * comparisons blind to the upper half, the default action, determinism,
 * the 4096-instruction limit, and corruption caught by validation.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bpf.h"
#include "emit.h"
#include "validate.h"
#include "tables.h"

#define MAXR 4200
#define ALLOW BPF_ACT_ALLOW
#define ENOSYS_ (BPF_ACT_ERRNO | ENOSYS)
#define EPERM_ (BPF_ACT_ERRNO | EPERM)

static struct cpol_rule rules[MAXR];
static struct cpol pol;
static char err[1024];

static void reset(uint32_t def)
{
	free(pol.insns);
	memset(&pol, 0, sizeof(pol));
	memset(rules, 0, sizeof(rules));
	pol.arch = tables_arch();
	pol.default_action = def;
	pol.rules = rules;
}

static struct cpol_rule *add(const char *name, uint32_t action)
{
	struct cpol_rule *r = &rules[pol.nrules++];
	int nr = tables_syscall_nr(name);

	assert_true(nr >= 0);
	r->nr = (uint32_t)nr;
	r->name = (char *)name;
	r->action = action;
	r->origin = (char *)"test:1";
	return r;
}

static void cond(struct cpol_rule *r, uint8_t arg, uint8_t op,
    uint8_t width, uint64_t mask, uint64_t value)
{
	struct cpol_cond c = { arg, op, width, mask, value };

	r->cond[r->ncond++] = c;
}

/* Rules are sorted by number in a struct cpol (stable: keep the order
 * of rules on one syscall). */
static void sort_rules(void)
{
	uint32_t i, j;

	for (i = 1; i < pol.nrules; i++)
		for (j = i; j > 0 && rules[j - 1].nr > rules[j].nr; j--) {
			struct cpol_rule t = rules[j];

			rules[j] = rules[j - 1];
			rules[j - 1] = t;
		}
}

/* The fixed ENOSYS rules, added as check/rules.c adds them. */
static void add_fixed(void)
{
	uint32_t a;
	size_t k;

	for (k = 0; tables_fixed_enosys[k]; k++)
		if (tables_fixed_action(&pol, (uint32_t)tables_syscall_nr(
		    tables_fixed_enosys[k]), &a))
			add(tables_fixed_enosys[k], a);
}

static void build(void)
{
	add_fixed();
	sort_rules();
	if (emit_seccomp(&pol, err, sizeof(err)) < 0)
		fail_msg("emit: %s", err);
	if (validate_seccomp(&pol, err, sizeof(err)) < 0)
		fail_msg("validate: %s", err);
}

static uint32_t ask(uint32_t arch, uint32_t nr, uint64_t a0, uint64_t a1)
{
	struct bpf_input in;

	memset(&in, 0, sizeof(in));
	in.arch = arch;
	in.nr = nr;
	in.args[0] = a0;
	in.args[1] = a1;
	return bpf_run(pol.insns, pol.ninsns, &in);
}

static uint32_t call(const char *name, uint64_t a0, uint64_t a1)
{
	return ask(tables_arch(), (uint32_t)tables_syscall_nr(name), a0, a1);
}

static void test_fixed_lowering(void **state)
{
	(void)state;
	reset(BPF_ACT_KILL_PROCESS);
	add("read", ALLOW);
	add("write", ALLOW);
	build();
	assert_int_equal(call("read", 0, 0), ALLOW);
	assert_int_equal(call("getpid", 0, 0), BPF_ACT_KILL_PROCESS);
	/* x32: the same number with bit 30 */
	assert_int_equal(ask(tables_arch(), 0x40000000u, 0, 0),
	    BPF_ACT_KILL_PROCESS);
	assert_int_equal(ask(tables_arch(), 0x40000001u, 0, 0),
	    BPF_ACT_KILL_PROCESS);
	assert_int_equal(ask(tables_arch(), 0xffffffffu, 0, 0),
	    BPF_ACT_KILL_PROCESS);
	/* ia32 (int 0x80) and other architectures */
	assert_int_equal(ask(0x40000003u, 3, 0, 0), BPF_ACT_KILL_PROCESS);
	assert_int_equal(ask(0xc00000b7u, 63, 0, 0), BPF_ACT_KILL_PROCESS);
	/* unknown numbers: above the table and in its hole */
	assert_int_equal(ask(tables_arch(), 470, 0, 0), ENOSYS_);
	assert_int_equal(ask(tables_arch(), 0x3fffffffu, 0, 0), ENOSYS_);
	assert_int_equal(ask(tables_arch(), 400, 0, 0), ENOSYS_);
	/* known to the kernel, unknown to libseccomp 2.5.4: default */
	assert_int_equal(call("mseal", 0, 0), BPF_ACT_KILL_PROCESS);
	assert_int_equal(call("uretprobe", 0, 0), BPF_ACT_KILL_PROCESS);
	/* clone3 and io_uring_*: ENOSYS, not the default */
	assert_int_equal(call("clone3", 0, 0), ENOSYS_);
	assert_int_equal(call("io_uring_setup", 0, 0), ENOSYS_);
	assert_int_equal(call("io_uring_enter", 0, 0), ENOSYS_);
	assert_int_equal(call("io_uring_register", 0, 0), ENOSYS_);
}

/* A table without the fixed ENOSYS rules (not built as check/ builds
 * one) is lowered as it is, and validation refuses it: clone3 would get
 * the default action. */
static void test_fixed_rules_required(void **state)
{
	(void)state;
	reset(BPF_ACT_KILL_PROCESS);
	add("read", ALLOW);
	assert_int_equal(emit_seccomp(&pol, err, sizeof(err)), 0);
	assert_int_equal(call("clone3", 0, 0), BPF_ACT_KILL_PROCESS);
	assert_int_equal(validate_seccomp(&pol, err, sizeof(err)), -1);
	print_message("%s\n", err);
	assert_non_null(strstr(err, "disagrees"));
}

static void test_named_clone3(void **state)
{
	(void)state;
	reset(BPF_ACT_KILL_PROCESS);
	add("clone3", EPERM_);
	add("mseal", ALLOW);
	build();
	assert_int_equal(call("clone3", 0, 0), EPERM_);
	assert_int_equal(call("mseal", 0, 0), ALLOW);
	assert_int_equal(call("io_uring_setup", 0, 0), ENOSYS_);
}

static void test_masked_32(void **state)
{
	struct cpol_rule *r;

	(void)state;
	reset(ENOSYS_);
	r = add("socket", ALLOW);
	cond(r, 0, CPOL_OP_EQ, 32, 0, 1);                    /* AF_UNIX */
	r = add("ioctl", ALLOW);
	cond(r, 1, CPOL_OP_EQ, 32, 0, 0x5401);               /* TCGETS */
	r = add("mmap", ALLOW);
	cond(r, 2, CPOL_OP_MASKED_EQ, 64, 4, 0);             /* no EXEC */
	r = add("personality", ALLOW);
	cond(r, 0, CPOL_OP_EQ, 32, 0, 0xffffffffffffffffu);  /* query */
	build();
	assert_int_equal(call("socket", 1, 0), ALLOW);
	assert_int_equal(call("socket", 0xffffffff00000001u, 0), ALLOW);
	assert_int_equal(call("socket", 0x8000000000000001u, 0), ALLOW);
	assert_int_equal(call("socket", 2, 0), ENOSYS_);
	assert_int_equal(call("socket", 0x100000002u, 0), ENOSYS_);
	assert_int_equal(call("ioctl", 1, 0x5401), ALLOW);
	assert_int_equal(call("ioctl", 1, 0xdead000000005401u), ALLOW);
	assert_int_equal(call("ioctl", 1, 0x5412), ENOSYS_);   /* TIOCSTI */
	assert_int_equal(call("ioctl", 1, 0x100005412u), ENOSYS_);
	assert_int_equal(call("personality", 0xffffffffu, 0), ALLOW);
	assert_int_equal(call("personality", 0xffffffffffffffffu, 0), ALLOW);
	assert_int_equal(call("personality", 0x0040000u, 0), ENOSYS_);
}

static void test_default_and_disjoint(void **state)
{
	struct cpol_rule *r;

	(void)state;
	reset(EPERM_);
	add("read", ALLOW);
	add("getpid", EPERM_);          /* same as default: no effect */
	r = add("kill", ALLOW);
	cond(r, 1, CPOL_OP_EQ, 32, 0, 0);
	r = add("kill", BPF_ACT_KILL_PROCESS);
	cond(r, 1, CPOL_OP_EQ, 32, 0, 9);
	r = add("lseek", ALLOW);
	cond(r, 1, CPOL_OP_LE, 64, 0, 4096);
	build();
	assert_int_equal(call("read", 0, 0), ALLOW);
	assert_int_equal(call("getpid", 0, 0), EPERM_);
	assert_int_equal(call("write", 0, 0), EPERM_);
	assert_int_equal(call("kill", 1, 0), ALLOW);
	assert_int_equal(call("kill", 1, 9), BPF_ACT_KILL_PROCESS);
	assert_int_equal(call("kill", 1, 15), EPERM_);
	assert_int_equal(call("lseek", 0, 4096), ALLOW);
	assert_int_equal(call("lseek", 0, 4097), EPERM_);
	assert_int_equal(call("lseek", 0, 0x100000000u), EPERM_);
}

static void test_deterministic(void **state)
{
	struct cpol_insn *first;
	uint32_t n;

	(void)state;
	reset(ENOSYS_);
	add("read", ALLOW);
	cond(add("socket", ALLOW), 0, CPOL_OP_EQ, 32, 0, 1);
	build();
	n = pol.ninsns;
	first = malloc(n * sizeof(*first));
	assert_non_null(first);
	memcpy(first, pol.insns, n * sizeof(*first));
	build();
	assert_int_equal(pol.ninsns, n);
	assert_memory_equal(pol.insns, first, n * sizeof(*first));
	free(first);
}

static void test_refused(void **state)
{
	struct cpol_rule *r;

	(void)state;
	reset(ENOSYS_);
	r = add("socket", ALLOW);
	cond(r, 0, CPOL_OP_LT, 32, 0, 3);
	assert_int_equal(emit_seccomp(&pol, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "32-bit"));
	reset(ENOSYS_);
	add("read", 0x7ff00000u);       /* trace: not an action cordon uses */
	assert_int_equal(emit_seccomp(&pol, err, sizeof(err)), -1);
	reset(ENOSYS_);
	pol.arch = 0x40000003u;
	assert_int_equal(emit_seccomp(&pol, err, sizeof(err)), -1);
}

static void test_too_big(void **state)
{
	uint32_t i;

	(void)state;
	reset(ENOSYS_);
	for (i = 0; i < MAXR; i++)
		cond(add("ioctl", ALLOW), 1, CPOL_OP_EQ, 32, 0, 0x1000 + i);
	assert_int_equal(emit_seccomp(&pol, err, sizeof(err)), -1);
	print_message("%s\n", err);
	assert_non_null(strstr(err, "4096"));
	assert_non_null(strstr(err, "ioctl"));
}

static void test_validation_catches(void **state)
{
	uint32_t i;

	(void)state;
	reset(BPF_ACT_KILL_PROCESS);
	add("read", ALLOW);
	cond(add("socket", ALLOW), 0, CPOL_OP_EQ, 32, 0, 1);
	build();
	/* turn the last ALLOW into EPERM: validation must object */
	for (i = pol.ninsns; i-- > 0;)
		if (pol.insns[i].k == ALLOW) {
			pol.insns[i].k = EPERM_;
			break;
		}
	assert_int_equal(validate_seccomp(&pol, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "disagrees"));
	/* rules that say something else than the program */
	build();
	rules[0].action = EPERM_;
	assert_int_equal(validate_seccomp(&pol, err, sizeof(err)), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixed_lowering),
		cmocka_unit_test(test_fixed_rules_required),
		cmocka_unit_test(test_named_clone3),
		cmocka_unit_test(test_masked_32),
		cmocka_unit_test(test_default_and_disjoint),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_too_big),
		cmocka_unit_test(test_validation_catches),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	free(pol.insns);
	return rc;
}
