"""The application's command-line options in the platform document: validated with the
application's rules and messages (vnet_pci_dev.c's ARGP callbacks; docs/vnet.md), refused with the JSON path."""
import json

import pytest

import _dpusim

from dpusim.testing import run_ok
from vnet_util import app_log, vnet_platform


def refusal(options):
    doc = vnet_platform(**{k.replace("-", "_"): v for k, v in options.items()})
    with pytest.raises(ValueError) as e:
        _dpusim.platform.validate(json.dumps(doc))
    return str(e.value)


@pytest.mark.parametrize("options,message", [
    ({"mtu": 67}, "$.topology.options.mtu: MTU must be between 68 and 9000"),
    ({"mtu": 9001}, "$.topology.options.mtu: MTU must be between 68 and 9000"),
    ({"speed": 0}, "$.topology.options.speed: Speed must be a positive value"),
    ({"duplex": 2}, "$.topology.options.duplex: Duplex must be 0 (half) or 1 (full)"),
    ({"max-queue-pairs": 0}, "$.topology.options.max-queue-pairs: Maximum queue pairs must be between 1 and 127"),
    ({"max-queue-pairs": 128}, "$.topology.options.max-queue-pairs: Maximum queue pairs must be between 1 and 127"),
    ({"queue-size": 8}, "$.topology.options.queue-size: Queue size must be between 16 and 4096"),
    ({"queue-size": 8192}, "$.topology.options.queue-size: Queue size must be between 16 and 4096"),
    ({"queue-size": 1000}, "$.topology.options.queue-size: Queue size must be a power of 2 (e.g., 256, 512, 1024)"),
    ({"num-ep": 33}, "$.topology.options.num-ep: Invalid num_ep value: 33. Must be between 1 and MAX_NUM_EP(32)"),
    ({"num-ep": 0}, "$.topology.options.num-ep: Invalid num_ep value: 0. Must be between 1 and MAX_NUM_EP(32)"),
    ({"hotplug-mode": 2}, "$.topology.options.hotplug-mode: Invalid hotplug mode value: 2. Must be 0 (static) or 1 (hotplug)"),
    ({"tlp-core": 1024}, "$.topology.options.tlp-core: Invalid TLP core index: 1024. Use -1 for auto or 0..1023"),
    ({"worker-core": -2}, "$.topology.options.worker-core: Invalid worker core index: -2. Use -1 for auto or 0..1023"),
    ({"mq-core": 5000}, "$.topology.options.mq-core: Invalid MQ core index: 5000. Use -1 for auto or 0..1023"),
    ({"tlp-core": 3, "worker-core": 3}, "$.topology.options.worker-core: tlp-core (3) must not equal worker-core (3)"),
    ({"tlp-core": 3, "mq-core": 3}, "$.topology.options.mq-core: mq-core (3) must not equal tlp-core (3)"),
    ({"lu-mode": "hot"}, "$.topology.options.lu-mode: Invalid --lu-mode value: 'hot' (expected: none, active, standby)"),
    ({"mac-addr": "52:54:00:12:34:56:7"}, "$.topology.options.mac-addr: Entered MAC address exceeding the maximum size of 17"),
    ({"mac-addr": "52:54:00:12:34"}, "$.topology.options.mac-addr: Invalid MAC address format: 52:54:00:12:34; "
                                     "Failed to parse MAC address: 52:54:00:12:34"),
    ({"mac-addr": "52:54:0:12:34:1ff"}, "$.topology.options.mac-addr: Invalid MAC address byte value: 511; "
                                         "Failed to parse MAC address: 52:54:0:12:34:1ff"),
    ({"mac-addr": "52:54:00:12:34:fe", "num-ep": 4},
     "$.topology.options.mac-addr: MAC address overflow for device 2 (base mac[5]=254 + index=2 > 255); "
     "Rolling back 2 already-initialized device(s)"),
    ({"pci-addr": "0000:03:00.0.1"}, "$.topology.options.pci-addr: Entered device PCI address exceeding the maximum size of 12"),
    ({"mtu": "abc"}, "$.topology.options.mtu: 'abc' is not an integer"),
    ({"mrg-rxbuf": 1}, "$.topology.options.mrg-rxbuf: is a flag: true or false, not 1"),
    # SR-IOV (docs/vnet.md, total-vfs): the start-up checks in their order.
    ({"total-vfs": 0}, "$.topology.options.total-vfs: Invalid --total-vfs value: 0. Must be between 1 and 64 "
                       "(per-PF VF limit)"),
    ({"total-vfs": 65}, "$.topology.options.total-vfs: Invalid --total-vfs value: 65. Must be between 1 and 64 "
                        "(per-PF VF limit)"),
    ({"num-ep": 5, "total-vfs": 64}, "$.topology.options.total-vfs: SR-IOV: device-wide VF VQ budget exceeded: "
                                     "5 PF(s) x 64 VF(s) x 17 VQs = 5440 > 4352"),
    ({"num-ep": 4, "total-vfs": 64, "max-queue-pairs": 9},
     "$.topology.options.total-vfs: SR-IOV: device-wide VF VQ budget exceeded: 4 PF(s) x 64 VF(s) x 19 VQs = "
     "4864 > 4352"),
    ({"num-ep": 32, "total-vfs": 9, "max-queue-pairs": 1},
     "$.topology.options.total-vfs: SR-IOV: aggregate VF count 288 (32 PF(s) x 9 VF(s)) exceeds the device limit "
     "of 256"),
    ({"num-ep": 4, "total-vfs": 4, "mac-addr": "52:54:00:12:ff:f0"},
     "$.topology.options.total-vfs: SR-IOV: VF MAC address overflow for vf_index 15 (base low16=0xfff0 + num_ep=4 "
     "+ vf_index=15 > 0xffff)"),
    ({"total-vfs": 4, "lu-mode": "active"},
     "$.topology.options.total-vfs: --total-vfs and --lu-mode are mutually exclusive: live update transfers PF "
     "state only"),
])
def test_bad_options_are_refused_with_the_apps_message(options, message):
    assert refusal(options) == message


def test_an_unknown_option_names_the_known_ones():
    msg = refusal({"sriov-vfs": 4})
    assert msg.startswith("$.topology.options.sriov-vfs: unknown option of the vnet_pci_dev application (known: "
                          "duplex, guest-csum,")


def test_wires_must_name_endpoints_with_ports():
    doc = vnet_platform(num_ep=2, peer=None)
    doc["wires"] = [{"a": "ep2", "b": "loopback"}]
    with pytest.raises(ValueError, match=r"^\$\.wires\[0\]\.a: endpoint 'ep2' does not exist \(the platform has 2\)$"):
        _dpusim.platform.validate(json.dumps(doc))
    doc["wires"] = [{"a": "ep0", "b": "loopback"}, {"a": "python", "b": "ep0"}]
    with pytest.raises(ValueError, match=r"^\$\.wires\[1\]\.b: endpoint 'ep0' is already on another wire$"):
        _dpusim.platform.validate(json.dumps(doc))
    with pytest.raises(ValueError, match=r"^\$\.wires\[0\]\.a: endpoint 'ep0' has no network port$"):
        _dpusim.platform.validate('{"topology": {"endpoints": 1}, "wires": [{"a": "ep0", "b": "loopback"}]}')


def test_integer_options_take_command_line_strings_and_the_banner_says_the_queues():
    async def scenario(sim):
        pass

    res = run_ok(scenario, vnet_platform(max_queue_pairs="4"))
    assert ("vnet.main", "info", "  Max Queue Pairs: 4 (Total VQs: 9)") in [(p, lv, m) for _, p, lv, m in app_log(res)]
    (start,) = res.events("platform_start")
    assert start["endpoints"] == "vnet num-ep=1 hotplug-mode=0 max-queue-pairs=4 queue-size=1024 " \
                                 "mac-addr=52:54:00:12:34:56 mtu=1500 speed=100000 " \
                                 "acg capacity=16 initial=16 refill=1 grants=0"


@pytest.mark.parametrize("firmware,message", [
    ([], "$.topology.firmware: must be an object, not array"),
    ({"credits": 1}, "$.topology.firmware.credits: unknown key (known: acg)"),
    ({"acg": {"capacity": -1}}, "$.topology.firmware.acg.capacity: must not be negative (got -1)"),
    ({"acg": {"capacity": 65536}}, "$.topology.firmware.acg.capacity: 65536 outside 0..65535"),
    ({"acg": {"initial": "3"}}, "$.topology.firmware.acg.initial: must be a non-negative integer, not string \"3\""),
    ({"acg": {"refill": 1}}, "$.topology.firmware.acg.refill: must be true or false, not 1"),
    ({"acg": {"grants": {"at_ps": 1}}}, "$.topology.firmware.acg.grants: must be an array of {\"at_ps\": T, \"count\": N}"),
    ({"acg": {"grants": [{"at_ps": 1}]}}, "$.topology.firmware.acg.grants[0]: needs both \"at_ps\" and \"count\""),
    ({"acg": {"grants": [{"at_ps": 1, "count": 1, "why": 2}]}},
     "$.topology.firmware.acg.grants[0].why: unknown key (known: at_ps, count)"),
])
def test_bad_firmware_parameters_are_refused_with_their_path(firmware, message):
    doc = vnet_platform(hotplug_mode=1)
    doc["topology"]["firmware"] = firmware
    with pytest.raises(ValueError) as e:
        _dpusim.platform.validate(json.dumps(doc))
    assert str(e.value) == message


def test_firmware_parameters_are_in_the_platform_start_event():
    doc = vnet_platform(hotplug_mode=1)
    doc["topology"]["firmware"] = {"acg": {"capacity": 4, "refill": False, "grants": [{"at_ps": 5, "count": 2}]}}

    async def scenario(sim):
        pass

    (start,) = run_ok(scenario, doc).events("platform_start")
    assert start["endpoints"].endswith(" acg capacity=4 initial=4 refill=0 grants=1")
