"""Bus/Device/Function routing IDs: 16-bit integers, printed and parsed as lspci does."""


def bdf(value, dev=None, fn=None):
    """A routing ID from "bb:dd.f", a (bus, dev, fn) triple or an int."""
    if dev is not None:
        bus = value
        if not (0 <= bus <= 255 and 0 <= dev <= 31 and 0 <= (fn or 0) <= 7):
            raise ValueError(f"BDF {bus}:{dev}.{fn} out of range (bus 0..255, device 0..31, function 0..7)")
        return bus << 8 | dev << 3 | (fn or 0)
    if isinstance(value, int):
        if not 0 <= value <= 0xFFFF:
            raise ValueError(f"routing ID {value:#x} is not 16 bits")
        return value
    if isinstance(value, tuple):
        return bdf(*value)
    if isinstance(value, str):
        try:
            bus, rest = value.split(":")
            dev, fn = rest.split(".")
            return bdf(int(bus, 16), int(dev, 16), int(fn, 16))
        except ValueError as e:
            raise ValueError(f"'{value}' is not a BDF like 02:00.0 ({e})") from None
    raise TypeError(f"cannot make a BDF of {value!r}")


def bdf_str(rid):
    return f"{rid >> 8:02x}:{(rid >> 3) & 0x1f:02x}.{rid & 7:x}"
