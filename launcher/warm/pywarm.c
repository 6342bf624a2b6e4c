/*
 * pywarm.c - _cordon_warm, the CPython extension of a warm pool's
 * template (warm.py): cordon itself, built from the same sources with
 * -fPIC and linked into the template, so a warm run is a cold run's code.
 *
 * run(argv) is called in a fork of the template's maker (one per run)
 * with the caller's descriptors on 0, 1, 2 (and 3 for --status-fd 3).
 * It runs cordon's main with argv: the workdir, the cgroup, the
 * namespaces, the run tmpfs, the rlimits, the capabilities dropped,
 * no_new_privs, Landlock, the run's init, seccomp, supervision and the
 * status report, all as in a cold run.  That process (cordon) never
 * returns: it exits with cordon's status.  Only in the run itself (the
 * process run.c's warm_start made after seccomp, every descriptor above
 * 2 closed) does run() return, with the run's argv and environment, for
 * warm.py to run the snippet as __main__.
 *
 * options() tells warm.py which options a request may carry, from
 * cordon's own option table; the module's constants (REQUEST_MAX,
 * MSG_READY, ...) are the warm protocol's, from warm.h.
 *
 * home_remove(dir) removes the template's own directory at its stop
 * (warmdir.c: the walk that removes a run's workdir).
 *
 * tie(parent) makes the pool's maker die with the template.
 *
 * harden() makes the template non-dumpable (no same-uid process may
 * ptrace it or read its memory; runs are in other namespaces and
 * Landlock domains as well).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "cordon.h"
#include "warm.h"

int cordon_main(int argc, char **argv);

/* learn.c's text bounds in this build (--observe is refused here). */
char warm_no_text[1];

static jmp_buf resume_at;

/* The process that forked this one, recorded in the forker before each
 * fork (pthread_atfork): a spare compares its parent with it once its
 * parent-death signal is set, so a forker that died before then (the
 * spare re-parented to init, or to a subreaper) ends the spare too. */
static pid_t forker;

static void fork_prepare(void)
{
	forker = getpid();
}
static char **run_argv, **run_envp;

static void resume(char **argv, char **envp) __attribute__((noreturn));

/* Set in the run: cordon's code stays mapped there, but is not the
 * snippet's to call (it could add layers only; it is refused). */
static int in_run;

static void resume(char **argv, char **envp)
{
	in_run = 1;
	warm_resume = NULL;
	warm_spare_ctl = -1;
	run_argv = argv;
	run_envp = envp;
	longjmp(resume_at, 1);
}

static PyObject *strings(char **v)
{
	PyObject *l = PyList_New(0), *s;
	int i;

	for (i = 0; l && v[i]; i++) {
		s = PyUnicode_DecodeFSDefault(v[i]);
		if (!s || PyList_Append(l, s) < 0) {
			Py_XDECREF(s);
			Py_DECREF(l);
			return NULL;
		}
		Py_DECREF(s);
	}
	return l;
}

/* run(argv, ctl): cordon's main with argv, as a spare of the pool whose
 * socket is ctl (warmhold.c).  Returns only in the run. */
static PyObject *warm_run(PyObject *self, PyObject *args)
{
	static char *argv[256];
	PyObject *list;
	Py_ssize_t n, i;
	int rc, ctl;

	(void)self;
	if (in_run) {
		PyErr_SetString(PyExc_RuntimeError, "_cordon_warm.run: not in "
		    "a warm run");
		return NULL;
	}
	if (!PyArg_ParseTuple(args, "O!i", &PyList_Type, &list, &ctl))
		return NULL;
	if ((n = PyList_Size(list)) < 2 || n > 255 || ctl < 0) {
		PyErr_SetString(PyExc_ValueError, "run(argv, ctl): a list of "
		    "2 to 255 strings, a descriptor");
		return NULL;
	}
	for (i = 0; i < n; i++) {
		PyObject *b = PyUnicode_EncodeFSDefault(PyList_GetItem(list,
		    i));

		if (!b)
			return NULL;
		argv[i] = strdup(PyBytes_AsString(b));
		Py_DECREF(b);
		if (!argv[i])
			return PyErr_NoMemory();
	}
	argv[n] = NULL;
	/* The maker's end (the template's: warm_maker.py) is the pool's:
	 * its death ends the spare. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 ||
	    getppid() != forker)
		_exit(EXIT_CORDON);
	if (setjmp(resume_at) == 0) {
		warm_resume = resume;
		warm_spare_ctl = ctl;
		rc = cordon_main((int)n, argv);
		fflush(NULL);
		/* The caller's descriptors (its socket, its output) closed
		 * now: _exit unmaps the template's pages first (a few ms),
		 * and closes them only after. */
		(void)close_range(0, ~0U, 0);
		_exit(rc);
	}
	/* The run: run.c's warm_start, seccomp installed, fds 0-3 only. */
	environ = run_envp;
	return Py_BuildValue("(NN)", strings(run_argv), strings(run_envp));
}

/* options(): {"--name": (takes a value, "run" or "setup")} for each
 * option a warm request may carry (main.c's table says which). */
static PyObject *warm_options(PyObject *self, PyObject *unused)
{
	PyObject *d = PyDict_New(), *v;
	const struct option *o;
	char name[64];

	(void)self;
	(void)unused;
	for (o = cordon_options; d && o->name; o++) {
		const char *kind = strchr(warm_run_options, o->val) ? "run" :
		    strchr(warm_setup_options, o->val) ? "setup" : NULL;

		if (!kind)
			continue;
		snprintf(name, sizeof(name), "--%s", o->name);
		v = Py_BuildValue("(Os)", o->has_arg ? Py_True : Py_False,
		    kind);
		if (!v || PyDict_SetItemString(d, name, v) < 0) {
			Py_XDECREF(v);
			Py_DECREF(d);
			return NULL;
		}
		Py_DECREF(v);
	}
	return d;
}

static PyObject *warm_huge_py(PyObject *self, PyObject *unused)
{
	(void)self;
	(void)unused;
	return PyLong_FromUnsignedLong(warm_huge());
}

static PyObject *warm_harden(PyObject *self, PyObject *unused)
{
	(void)self;
	(void)unused;
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		return PyErr_SetFromErrno(PyExc_OSError);
	Py_INCREF(Py_None);
	return Py_None;
}

/* tie(parent): this process dies (SIGKILL) with its parent, the pool's
 * template (the maker, warm_maker.py); parent has gone already: OSError. */
static PyObject *warm_tie(PyObject *self, PyObject *args)
{
	int parent;

	(void)self;
	if (!PyArg_ParseTuple(args, "i", &parent))
		return NULL;
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		return PyErr_SetFromErrno(PyExc_OSError);
	if (getppid() != parent) {
		PyErr_SetString(PyExc_OSError, "the pool's template has gone");
		return NULL;
	}
	Py_INCREF(Py_None);
	return Py_None;
}

static PyObject *warm_home_remove(PyObject *self, PyObject *args)
{
	char err[ERRLEN];
	const char *dir;

	(void)self;
	if (in_run) {
		PyErr_SetString(PyExc_RuntimeError, "_cordon_warm.home_remove: "
		    "not in a warm run");
		return NULL;
	}
	if (!PyArg_ParseTuple(args, "s", &dir))
		return NULL;
	if (warmdir_remove(dir, err, sizeof(err)) < 0) {
		PyErr_SetString(PyExc_OSError, err);
		return NULL;
	}
	Py_INCREF(Py_None);
	return Py_None;
}

static PyMethodDef methods[] = {
	{ "run", warm_run, METH_VARARGS, "a warm run: cordon, in this process" },
	{ "harden", warm_harden, METH_NOARGS, "make the template "
	    "non-dumpable" },
	{ "tie", warm_tie, METH_VARARGS, "die with the parent (the "
	    "pool's template)" },
	{ "home_remove", warm_home_remove, METH_VARARGS, "remove the "
	    "template's directory" },
	{ "options", warm_options, METH_NOARGS, "the options a warm "
	    "request may carry" },
	{ "huge", warm_huge_py, METH_NOARGS, "the template's anonymous "
	    "memory in huge pages (best effort): how many" },
	{ NULL, NULL, 0, NULL },
};

static struct PyModuleDef module = {
	PyModuleDef_HEAD_INIT, "_cordon_warm", NULL, -1, methods,
	NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__cordon_warm(void);

/* The protocol's numbers (warm.h), for the template to read, not copy. */
static const struct {
	const char *name;
	long value;
} numbers[] = {
	{ "REQUEST_MAX", WARM_REQUEST_MAX }, { "WORDS_MAX", WARM_WORDS_MAX },
	{ "SPARE_MAX", WARM_SPARE_MAX }, { "ERROR_MAX", WARM_ERROR_MAX },
	{ "HEAD_LEN", WARM_HEAD_LEN }, { "FDS_MIN", WARM_FDS_MIN },
	{ "FDS_MAX", WARM_FDS_MAX }, { "STATUS_FD", WARM_STATUS_FD },
	{ "CTL_FD", WARM_CTL_FD }, { "RUN_READY_FD", WARM_RUN_READY_FD },
	{ "LISTENER_FD", WARM_LISTENER_FD },
};

/* Its letters, as one-byte bytes objects (b"R"). */
static const struct {
	const char *name;
	char letter;
} letters[] = {
	{ "MSG_WARM", WARM_MSG_WARM }, { "MSG_READY", WARM_MSG_READY },
	{ "READY_TMPFS", WARM_READY_TMPFS }, { "READY_PLAIN", WARM_READY_PLAIN },
	{ "MSG_GO", WARM_MSG_GO }, { "MSG_EXIT", WARM_MSG_EXIT },
	{ "MSG_ERROR", WARM_MSG_ERROR },
};

static int protocol_add(PyObject *m)
{
	size_t i;

	for (i = 0; i < sizeof(numbers) / sizeof(numbers[0]); i++)
		if (PyModule_AddIntConstant(m, numbers[i].name,
		    numbers[i].value) < 0)
			return -1;
	for (i = 0; i < sizeof(letters) / sizeof(letters[0]); i++) {
		PyObject *b = PyBytes_FromStringAndSize(&letters[i].letter, 1);

		if (!b || PyModule_AddObject(m, letters[i].name, b) < 0) {
			Py_XDECREF(b);
			return -1;
		}
	}
	return PyModule_AddStringConstant(m, "READY_WORD", WARM_READY_WORD);
}

PyMODINIT_FUNC PyInit__cordon_warm(void)
{
	PyObject *m = PyModule_Create(&module);

	if (m && (protocol_add(m) < 0 ||
	    pthread_atfork(fork_prepare, NULL, NULL) != 0)) {
		Py_DECREF(m);
		return NULL;
	}
	return m;
}
