/*
 * shm.h - the names libcordon-shm.so (shm.c, in the run) and cordon
 * (shmredirect.c, which preloads it) share.
 */
#ifndef CORDON_SHM_H
#define CORDON_SHM_H

#define SHM_LIB "libcordon-shm.so"    /* beside cordon (companion.c) */
#define SHM_ENV "CORDON_SHM_DIR"      /* WORKDIR/CPOL_SHM_DIR_NAME */

#endif
