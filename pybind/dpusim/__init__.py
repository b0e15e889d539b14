"""dpusim: a deterministic SystemC/TLM-2.0 simulator of DPU-emulated PCIe devices.

The native core lives in the extension module ``_dpusim``; this package wraps it.
"""

__all__ = ["native"]


def native():
    """The extension module, imported on first use so pure-Python helpers load without it."""
    import _dpusim

    return _dpusim
