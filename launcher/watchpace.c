/*
 * watchpace.c - when the watch (no run tmpfs) walks the workdir.  A walk
 * (watch_measure) costs in proportion to the tree, so it runs every
 * RUNFS_WATCH_MS at most (sooner near a bound, later on a large tree);
 * between walks the supervisor asks the workdir's file system, every
 * RUNFS_WATCH_TICK_MS, how many inodes and blocks it has in use
 * (fstatfs: one call, whatever the tree).  What the file system gained
 * since the last walk is at most what the run made since (other writers
 * only add to it), so the last walk plus that gain bounds the run from
 * above: once it passes a bound, the next walk is now, not at its
 * schedule.  A creator as fast as the file system lets it is then
 * stopped within a tick and a walk of its bound (cordon(1) gives the
 * figures measured).  Where the file system counts no inodes (btrfs,
 * some network file systems: f_files 0), files wait for the scheduled
 * walk.
 *
 * The same call tells when the file system runs low: under
 * 1/RUNFS_WATCH_RESERVE_DIV of its inodes or blocks free (as the
 * caller's uid sees them, f_bavail), a walk is due, and the run is
 * ended if it holds more than at its first walk, whatever its bounds:
 * cordon ends the run rather than let it fill the caller's file system.
 */
#include <string.h>
#include <sys/statvfs.h>

#include "cordon.h"

/* The file system's inodes and bytes in use and whether it is low;
 * -1 when it says nothing. */
static int fs_used(int fd, uint64_t *files, uint64_t *bytes, int *low)
{
	struct statvfs s;

	if (fstatvfs(fd, &s) < 0)
		return -1;
	*files = s.f_files ? s.f_files - s.f_ffree : 0;
	*bytes = (s.f_blocks - s.f_bfree) * (uint64_t)s.f_frsize;
	*low = (s.f_files && s.f_favail < s.f_files / RUNFS_WATCH_RESERVE_DIV)
	    || s.f_bavail < s.f_blocks / RUNFS_WATCH_RESERVE_DIV;
	return 0;
}

static uint64_t gain(uint64_t now, uint64_t then)
{
	return now > then ? now - then : 0;
}

/* What is due now (cordon.h: WATCH_WAIT...). */
int watch_due(struct watch_pace *w, int fd, uint64_t now)
{
	uint64_t files, bytes;
	int low;

	if (!w->walked || now >= w->walk_at)
		return WATCH_WALK;
	if (!w->fs_ok || now < w->soonest ||
	    fs_used(fd, &files, &bytes, &low) < 0)
		return WATCH_WAIT;
	if (low && (files > w->fs_files || bytes > w->fs_bytes))
		return WATCH_LOW;
	if (w->fs_files && w->files + gain(files, w->fs_files) > w->max_files)
		return WATCH_COUNT;
	if (w->bytes + gain(bytes, w->fs_bytes) > w->max_bytes)
		return WATCH_DISK;
	return WATCH_WAIT;
}

/* A walk found bytes and files (cost_us: its CPU time; next: the ms to
 * the scheduled walk; due: watch_due's answer).  1 when the run is past
 * a bound, 2 when it holds more than at its first walk on a low file
 * system, else 0.  An early walk that found the run within its bounds
 * (the file system gained from other writers) holds the next early one
 * back by its own cost: cordon at most half a CPU.  The run cannot cause
 * that itself: to raise the estimate it must pass a bound. */
int watch_walked(struct watch_pace *w, uint64_t now,
    const uint64_t found[2], uint64_t cost_us, uint64_t next, int due)
{
	uint64_t share = cost_us * RUNFS_WATCH_SHARE / 1000;

	if (found[0] > w->max_bytes || found[1] > w->max_files)
		return 1;
	if (!w->walked) {
		w->start_bytes = found[0];
		w->start_files = found[1];
	}
	if (due == WATCH_LOW &&
	    (found[0] > w->start_bytes || found[1] > w->start_files))
		return 2;
	w->walked = 1;
	w->bytes = found[0];
	w->files = found[1];
	w->fs_files = w->snap_files;
	w->fs_bytes = w->snap_bytes;
	w->fs_ok = w->snap_ok;
	/* where the file system answers, it tells when to walk early: the
	 * schedule need not hurry near a bound (a walk blinds the watch) */
	if (w->fs_ok && next < RUNFS_WATCH_MS)
		next = RUNFS_WATCH_MS;
	w->soonest = now + (due == WATCH_WALK ? 0 : cost_us / 1000);
	w->walk_at = now + (share > next ? share : next);
	return 0;
}

/* Before a walk: what the file system has in use, so that what the run
 * makes during the walk, seen by it or not, counts in the next
 * estimates. */
void watch_before(struct watch_pace *w, int fd)
{
	int low;

	w->snap_ok = fs_used(fd, &w->snap_files, &w->snap_bytes, &low) == 0;
}

/* The ms to wait before asking watch_due again. */
uint64_t watch_wait(const struct watch_pace *w, uint64_t now)
{
	uint64_t at = now + RUNFS_WATCH_TICK_MS;

	if (w->soonest > at)
		at = w->soonest;
	return (w->walk_at < at ? w->walk_at : at) - now;
}

void watch_pace_init(struct watch_pace *w, uint64_t max_bytes,
    uint64_t max_files)
{
	memset(w, 0, sizeof(*w));
	w->max_bytes = max_bytes;
	w->max_files = max_files;
}
