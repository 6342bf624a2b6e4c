/*
 * relay.c - the run's stdout and stderr, relayed to the caller from
 * supervise()'s loop up to the output cap (bytes past it are read and
 * dropped), each stream through a bounded pending buffer; cordon never
 * blocks, on the run or on a caller that does not read (sink.c).
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "cordon.h"

/* Read what the run wrote on stream i.  Bytes past the cap are counted
 * and dropped; with drain (the run is over), so are bytes that find no
 * room, and those count as dropped output. */
/* Room left under the cap for stream i.  A session's stdout (--session)
 * carries its frames: the driver bounds each cell's output, per cell. */
static uint64_t left_of(const struct relay *rl, int i)
{
	return i == 0 && rl->frames ? UINT64_MAX : rl->cap - rl->taken;
}

static void relay_read(struct relay *rl, int i, int drain)
{
	/* Static, not on the stack: the stack-clash probes would touch all
	 * 16 pages on entry, and a first touch is a page fault (~12 us on
	 * the bench VM); here only the pages a read fills are touched. */
	static char scratch[65536];
	struct stream *s = &rl->s[i];
	uint64_t left = left_of(rl, i), keep;
	size_t room;
	char *to;
	ssize_t n;

	if (s->off > 0) {
		memmove(s->pend, s->pend + s->off, s->len);
		s->off = 0;
	}
	room = RELAY_PENDING - s->len;
	if (room == 0 && left > 0 && !drain)
		return;
	to = room > 0 && left > 0 ? s->pend + s->len : scratch;
	n = read(s->in, to, to == scratch ? sizeof(scratch) : room);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		close(s->in);
		s->in = -1;
		return;
	}
	*s->count += (uint64_t)n;
	keep = (uint64_t)n;
	if (keep > left) {             /* past the cap: the rest dropped */
		keep = left;
		rl->r->truncated = rl->over = 1;
	}
	if (left != UINT64_MAX)
		rl->taken += keep;
	if (to == scratch)
		rl->r->output_dropped += keep;
	else
		s->len += (size_t)keep;
}

/* Give the caller what it takes now; a sink that is gone drops all. */
static void relay_flush(struct relay *rl, int i)
{
	struct stream *s = &rl->s[i];

	while (s->len > 0) {
		ssize_t w = sink_put(&s->out, s->pend + s->off, s->len);

		if (w == 0)
			break;
		if (w < 0) {
			rl->r->output_dropped += s->len;
			s->len = 0;
			break;
		}
		s->off += (size_t)w;
		s->len -= (size_t)w;
	}
	if (s->len == 0)
		s->off = 0;
}

/* pf[0..1]: the run's pipes, pf[2..3]: cordon's stdout and stderr. */
void relay_fds(const struct relay *rl, struct pollfd *pf, int drain)
{
	int i;

	for (i = 0; i < 2; i++) {
		const struct stream *s = &rl->s[i];

		pf[i].fd = s->in >= 0 && (drain || s->len < RELAY_PENDING ||
		    left_of(rl, i) == 0) ? s->in : -1;
		pf[i].events = POLLIN;
		pf[2 + i].fd = s->len > 0 && s->out.mode != SINK_GONE ?
		    s->out.fd : -1;
		pf[2 + i].events = POLLOUT;
		pf[i].revents = pf[2 + i].revents = 0;
	}
}

void relay_step(struct relay *rl, const struct pollfd *pf, int drain)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (pf[i].revents & (POLLIN | POLLHUP | POLLERR))
			relay_read(rl, i, drain);
		relay_flush(rl, i);
	}
}

/* After the run: the caller has SUPERVISE_FLUSH_MS to take what is left;
 * then the rest is read to EOF (every writer is dead) and dropped. */
void relay_finish(struct relay *rl)
{
	uint64_t until = clock_now_ms() + SUPERVISE_FLUSH_MS, now;
	struct pollfd pf[4];
	int i;

	while (rl->s[0].in >= 0 || rl->s[1].in >= 0 || rl->s[0].len > 0 ||
	    rl->s[1].len > 0) {
		now = clock_now_ms();
		if (now >= until)
			break;
		relay_fds(rl, pf, 1);
		if (poll(pf, 4, (int)(until - now)) < 0 && errno != EINTR)
			break;
		relay_step(rl, pf, 1);
	}
	for (i = 0; i < 2; i++) {
		rl->r->output_dropped += rl->s[i].len;
		rl->s[i].len = 0;
		while (rl->s[i].in >= 0)
			relay_read(rl, i, 1);
		rl->r->output_dropped += rl->s[i].len;
		rl->s[i].len = 0;
		sink_close(&rl->s[i].out);
	}
}
