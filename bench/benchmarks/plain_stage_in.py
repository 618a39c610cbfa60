"""The plain stage-in pass of the three-phase lifecycle, the yardstick of the compiled one
(``simcore/_stage_in_kernel.py``): for every job of the stage queue in order, a fit test and
the banker's check over the staged jobs sorted from scratch — O(Q S log S) per pass for Q
waiting and S staged jobs. ``tests/simcore/test_stage_in.py`` checks that both give the same
schedules; ``three_phase_scale.py`` times both passes side by side."""

from __future__ import annotations

from schedbench.simcore.engine import _STAGE_IN_DONE, Simulation


class PlainStageIn(Simulation):
    """The engine with the plain stage-in pass."""

    def _stage_in_pass(self) -> None:
        b = self.bb_index
        i = 0
        while i < len(self.stage_queue):
            j = self.stage_queue[i]
            amount = self.data_in[j]
            if amount <= self.free[b] + self.bb_eps and self._plain_safe(j):
                self.stage_queue.pop(i)
                self._set_free(b, self.free[b] - amount)
                self.used_bb += amount
                self.staged[j] = None
                self.first_alloc[j] = self.now
                self._push(self.now + amount / self.system.bw_io_gbps, _STAGE_IN_DONE, j)
            else:
                if amount <= self.free[b] + self.bb_eps:
                    self.counters.stage_in_deferred_unsafe += 1
                i += 1

    def _plain_safe(self, new: int) -> bool:
        """Banker's check: with ``new`` staged, can every staged job still get its run buffer?"""
        b = self.bb_index
        holders = [*self.staged, new]
        avail = self.system.bb_gb - sum(self.data_in[h] for h in holders)
        needs = sorted((self.dem[h][b], self.data_in[h]) for h in holders)
        for need, held in needs:
            if need > avail + self.bb_eps:
                return False
            avail += held
        return True
