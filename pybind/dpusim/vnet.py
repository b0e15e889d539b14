"""The virtio-net application's platform as a scenario reaches it besides the fabric: its
stdin commands, and read-only views of the model for tests (drivers never use these)."""


class Vnet:
    def __init__(self, sim):
        import _dpusim

        self._m = _dpusim.vnet
        self._p = sim.platform

    def command(self, line):
        """A line on the application's stdin: "plug <i>", "unplug <i>", "speed <i> <mbps>"."""
        self._m.command(self._p, line)

    def vq_state(self, ep, vq):
        return self._m.vq_state(self._p, ep, vq)

    def reset_state(self, ep):
        return self._m.reset_state(self._p, ep)

    def counters(self, ep):
        return self._m.counters(self._p, ep)

    def submit_work(self, type, ep=-1, arg=0, arg2=0):
        """Test hook: queues a PCI_CFG_WORK_* item as the application's own code would."""
        return self._m.submit_work(self._p, type, ep, arg, arg2)

    def active_qps(self, ep):
        return self._m.active_qps(self._p, ep)


def vnet(sim):
    return Vnet(sim)
