"""When a warm pool's spares are exercised (warm_serve.py decides with it).

An exercised spare has run the preloads once more before its request (a
real call then costs a third of an unexercised one's), but making it
takes a core for about a quarter of a second here.  While callers come
faster than that, a spare made for the next of them is not exercised: it
would not be ready in time, and a waiting caller pays all of it.

"Faster than that" is a guess from the last exercised spare's making,
fork to ready, and a guess can go stale two ways, both measured: the
pool's first spares are made together, beside the template's start-up
(0.53 s against 0.25 s alone), and a busy moment can slow one.  A
stale guess longer than the callers' pace made every later spare
unexercised, so no new making was ever measured: a pool whose callers
came every 0.3 s served all of them unexercised from its start.  So
only a spare made alone (no other spare being made meanwhile) is
measured, and after PROBE_EVERY spares left unexercised on the guess
alone (a ready spare was there for the caller), the next one is
exercised all the same: its making is the new guess.
"""

import time

PROBE_EVERY = 8         # spares skipped on the guess, then one exercised


class Pace:
    def __init__(self):
        self.making_s = 0.0     # an exercised spare's making, the last
        self.pressed = False    # callers outpace exercised spares
        self.guessed = False    # ... by the guess alone (a spare was ready)
        self.skipped = 0        # spares left unexercised on the guess
        self.last = None        # when the last request came

    def request(self, ready, now=None):
        """A caller's request came; ready: spares ready for it.  Pressed:
        none was, or it came sooner after the last than an exercised
        spare takes to make."""
        now = time.monotonic() if now is None else now
        soon = self.last is not None and now - self.last < self.making_s
        self.pressed = not ready or soon
        self.guessed = bool(ready) and soon
        self.last = now

    def exercise(self):
        """Whether the spare made now (for no request) is exercised."""
        if not self.pressed:
            self.skipped = 0
            return True
        if not self.guessed:
            return False
        self.skipped += 1
        if self.skipped < PROBE_EVERY:
            return False
        self.skipped = 0
        return True

    def made(self, warm, alone, born, now=None):
        """A spare is ready: forked at born, exercised or not, made alone
        or beside another's making."""
        if warm and alone:
            now = time.monotonic() if now is None else now
            self.making_s = now - born
