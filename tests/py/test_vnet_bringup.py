"""A Linux probe of the application's endpoints: the application's log, line by line as
docs/vnet.md documents it, its work items and their times from the timing profile, the
deferred MQ start of static multi-endpoint mode, and the MQ start threads."""
from dpusim.testing import run_ok
from vnet_util import MS, app_log, bring_up, cost, first_time, msgs, vnet_platform, wait_mq_started

MAIN_PROBE = [
    "VIRTIO STATUS CHANGE: 0x40 -> 0x00",
    "VirtIO Driver: DEVICE RESET - reinitializing device",
    "VirtIO device reset [finished]",
    "VIRTIO STATUS CHANGE: 0x00 -> 0x01",
    "VirtIO Driver: ACKNOWLEDGE - driver detected VirtIO device",
    "VIRTIO STATUS CHANGE: 0x01 -> 0x03",
    "VirtIO Driver: DRIVER loaded - OS driver attached to device",
    "02:00.0:VirtIO Status: <DRIVER> bit set",
    "VIRTIO_F_VERSION_1 now visible to driver (bit 32)",
    "VIRTIO STATUS CHANGE: 0x03 -> 0x0b",
    # The high driver-feature word is never latched under Linux's write order.
    "VirtIO Driver: FEATURES_OK - feature negotiated (=0x431829)",
    "02:00.0:VirtIO Status: <FEATURES_OK> bit set - starting hardware preparation",
    "MQ features negotiated: F_CTRL_VQ + F_MQ -- CVQ + MQ support enabled",
    "Workqueue status: pool_free=1024/1024, pending=0, processed=0, dropped=0, shutdown=0",
    "FEATURES_OK: About to queue async work (engine_started=0)",
    "FEATURES_OK: Submitting engine_start work item",
    "FEATURES_OK: engine_start submitted",
    "FEATURES_OK: MQ mode=enabled, max_qps=8, active_qps=1",
    "FEATURES_OK: Submitting initialize_vqs work item",
    "FEATURES_OK: initialize_vqs submitted",
    "FEATURES_OK: Submitting initialize_io_context work item",
    "FEATURES_OK: initialize_io_context submitted",
    "FEATURES_OK: All async work items submitted, handler complete",
] + [f"VQ{q} enabled (0\u21921) - applying configuration to hardware" for q in range(17)] + [
    "VIRTIO STATUS CHANGE: 0x0b -> 0x0f",
    "VirtIO Driver: DRIVER_OK - device should already be live!",
    "Final State: features=0x431829, queues=17, MAC=52:54:00:12:34:56",
    "02:00.0: DRIVER_OK set - starting VQs and enabling engine",
    "02:00.0: VNet: now OPERATIONAL - MAC 52:54:00:12:34:56",
    "  Configured VQs: 17, Active QPs: 1/8",
    "  CVQ: started",
    "02:00.0: VirtIO DRIVER_OK detected - device is live now",
]


def vq_line(q, vq, msix):
    return (f"VQ{q} configured: size={vq.size}, msix={msix}, desc={vq.desc:#x}, driver={vq.avail:#x}, "
            f"device={vq.used:#x}")


def test_single_endpoint_probe_logs_what_the_app_logs():
    async def scenario(sim):
        _, (net,) = await bring_up(sim, open_=False)
        await wait_mq_started(sim, 0, 4)
        return [(vq.index, vq.desc, vq.avail, vq.used, vq.size) for vq in net.vqs + [net.cvq]]

    res = run_ok(scenario, vnet_platform(num_ep=1))
    main = [m for m in msgs(res, thread="vnet.main") if not m.startswith("Device BDF renumbered")]
    start = main.index("VIRTIO STATUS CHANGE: 0x40 -> 0x00")
    assert main[start:start + len(MAIN_PROBE)] == MAIN_PROBE

    class Vq:
        def __init__(self, t):
            self.index, self.desc, self.avail, self.used, self.size = t

    vqs = {t[0]: Vq(t) for t in res.result}
    worker = msgs(res, thread="vnet.worker")
    assert worker[:20] == [
        "Executing offload engine start",
        "VNet offload engine started (async)",
        "Created 8 queue pairs (VQ0-VQ15)",
        "Created CVQ (VQ16)",
        "VQ initialization complete - ready for host configuration",
        "Initializing IO context for CVQ command handling",
        "IO context created: io_ctx@ep0",
        "IO context attached to worker PE=worker_pe@ep0, controller=controller@ep0",
        "ctrl_req handler registered for io_ctx=io_ctx@ep0",
        "IO context started, io_ctx=io_ctx@ep0",
        "IO context initialization complete",
        vq_line(0, vqs[0], 1),
        vq_line(1, vqs[1], 2),
        vq_line(16, vqs[16], 0xFFFF),
        "Executing VQs start and engine enable",
        "VQ16 (CVQ) started",  # the application's debug line; the CVQ is not configured again
        "All VQs configured and started (engine not yet enabled)",
        "Enabling VNet offload engine",
        "VNet offload engine enabled successfully",
        "VNet offload engine enabled - device ready for DRIVER_OK",
    ]
    assert worker[20:23] == ["ctrl_req received: cls=4, cmd=0, controller=controller@ep0", "MQ_VQ_PAIRS_SET: 1 -> 4 QPs",
                             "MQ start QPs 1 -> 4 spawned as joinable thread (parallel execution)"]
    # VQ_CONFIG of the data VQs beyond the active pair is dropped at submission.
    configs = [e["arg"] for e in res.events("work_queued", type="PCI_CFG_WORK_VQ_CONFIG")]
    assert configs == [0, 1, 16]
    # "VQ%d configured" only where a VQ_CONFIG item applies a queue's configuration: never in
    # START_AND_ENABLE nor in the MQ start's thread (VQ2-VQ7 start there without it).
    spans = [(a["time_ps"], b["time_ps"]) for a, b in zip(res.events("work_started", type="PCI_CFG_WORK_VQ_CONFIG"),
                                                           res.events("work_finished", type="PCI_CFG_WORK_VQ_CONFIG"))]
    configured = [(t, m) for t, p, _, m in app_log(res) if " configured: size=" in m]
    assert [m.split()[0] for _, m in configured] == ["VQ0", "VQ1", "VQ16"]
    assert all(any(a <= t <= b for a, b in spans) for t, _ in configured)


def test_work_items_take_their_profile_costs():
    async def scenario(sim):
        await bring_up(sim, open_=False)
        await wait_mq_started(sim, 0, 4)

    res = run_ok(scenario, vnet_platform(num_ep=1))

    def span(item_type, end_msg):
        (started,) = res.events("work_started", type=item_type)
        return first_time(res, end_msg, "vnet.worker") - started["time_ps"]

    assert span("PCI_CFG_WORK_ENGINE_START", "VNet offload engine started (async)") == cost("vnet.work.engine_start_ps")
    assert span("PCI_CFG_WORK_INITIALIZE_VQS", "Created CVQ (VQ16)") == 17 * cost("vnet.work.vq_create_ps")
    assert span("PCI_CFG_WORK_INITIALIZE_IO_CTX", "IO context initialization complete") == \
        cost("vnet.work.io_ctx_create_ps")
    # START_AND_ENABLE (not deferred): VQ0 and VQ1 start, the CVQ is configured and started,
    # the engine enabled, the counters created.
    se = res.events("work_started", type="PCI_CFG_WORK_START_AND_ENABLE")[0]["time_ps"]
    t = lambda m: first_time(res, m, "vnet.worker") - se  # noqa: E731
    started = 3 * cost("vnet.work.vq_start_ps") + cost("vnet.work.vq_set_conf_ps")
    assert t("All VQs configured and started (engine not yet enabled)") == started
    assert t("VNet offload engine enabled successfully") == started + cost("vnet.work.engine_enable_ps")
    assert t("VNet offload engine enabled - device ready for DRIVER_OK") == \
        started + cost("vnet.work.engine_enable_ps") + cost("vnet.work.counters_ps")
    # The MQ start: three queue pairs, each RX and TX set_conf + start, then the 1 ms yield.
    per_qp = 2 * (cost("vnet.work.vq_set_conf_ps") + cost("vnet.work.vq_start_ps")) + cost("vnet.mq.qp_yield_ps")
    assert first_time(res, "Successfully started QPs 1-3", "vnet.mq0") - first_time(
        res, "Starting QPs 1-3 (VQs 2-7)", "vnet.mq0") == 3 * per_qp + cost("vnet.work.vq_group_enable_ps")
    # Consecutive items: the worker progresses its PEs between them.
    finished = res.events("work_finished", type="PCI_CFG_WORK_ENGINE_START")[0]["time_ps"]
    nxt = res.events("work_started", type="PCI_CFG_WORK_INITIALIZE_VQS")[0]["time_ps"]
    assert nxt - finished == cost("vnet.worker.progress_ps")
    # An idle worker wakes when an item is submitted.
    queued = res.events("work_queued", type="PCI_CFG_WORK_ENGINE_START")[0]["time_ps"]
    assert res.events("work_started", type="PCI_CFG_WORK_ENGINE_START")[0]["time_ps"] - queued == \
        cost("vnet.worker.wakeup_ps")


def test_static_endpoints_defer_data_queues_until_all_are_live():
    async def scenario(sim):
        await bring_up(sim, open_=False)
        await wait_mq_started(sim, 1, 4)

    res = run_ok(scenario, vnet_platform(num_ep=2))
    log = msgs(res)
    # No data VQ is configured before the MQ start: only the CVQs' VQ_CONFIG is queued.
    assert [(e["ep"], e["arg"]) for e in res.events("work_queued", type="PCI_CFG_WORK_VQ_CONFIG")] == [(0, 16), (1, 16)]
    assert "start_and_enable deferred until CVQ configuration is complete" not in log
    # The first control request of each controller waits 400 ms on the worker.
    for ep in (0, 1):
        received = [t for t, p, _, m in app_log(res, "vnet.worker")
                    if m == f"ctrl_req received: cls=4, cmd=0, controller=controller@ep{ep}"]
        pairs = [t for t, p, _, m in app_log(res, "vnet.worker") if m == "MQ_VQ_PAIRS_SET: 1 -> 4 QPs"]
        assert pairs[ep] - received[0] == cost("vnet.ctrl_req_delay_ps")
    assert "MQ defer: deferring MQ start 0 -> 4 until all 2 static devices are live" in log
    i = log.index("MQ defer: all 2/2 controllers live - releasing 1 deferred MQ starts")
    assert log[i + 1:i + 3] == ["MQ defer: enumeration settled, releasing deferred MQ start 0 -> 4 on PF[0]",
                                "MQ start QPs 0 -> 4 spawned as joinable thread (parallel execution)"]
    # Endpoint 1's request arrives once all are live: its start is spawned at once, with QP0.
    assert "Starting QPs 0-3 (VQs 0-7)" in msgs(res, thread="vnet.mq1")


def test_at_most_two_mq_start_threads_run_at_once():
    async def scenario(sim):
        await bring_up(sim, open_=False)
        await wait_mq_started(sim, 3, 4)

    res = run_ok(scenario, vnet_platform(num_ep=4))
    acquired = {p: t for t, p, _, m in app_log(res) if m == "MQ start thread acquired semaphore slot"}
    done = {p: t for t, p, _, m in app_log(res) if m.startswith("Background thread: MQ start QPs 0 -> 4 completed")}
    assert sorted(acquired) == ["vnet.mq0", "vnet.mq1", "vnet.mq2", "vnet.mq3"]
    # Three starts are released together; the third waits for a slot.
    assert acquired["vnet.mq0"] == acquired["vnet.mq1"] < acquired["vnet.mq2"]
    assert acquired["vnet.mq2"] == min(done["vnet.mq0"], done["vnet.mq1"])
    running = sorted((t, +1) for t in acquired.values()) + sorted((t, -1) for t in done.values())
    level = peak = 0
    for _, d in sorted(running, key=lambda x: (x[0], x[1])):
        level += d
        peak = max(peak, level)
    assert peak == 2
    per_qp = 2 * (cost("vnet.work.vq_set_conf_ps") + cost("vnet.work.vq_start_ps")) + cost("vnet.mq.qp_yield_ps")
    assert done["vnet.mq0"] - acquired["vnet.mq0"] == 4 * per_qp + cost("vnet.work.vq_group_enable_ps")


def test_pe1_answers_a_config_read_in_its_service_time():
    from vnet_util import serialisation_ps

    async def scenario(sim):
        t0 = sim.now
        cpl = await sim.host.config_read("00:00.0", 0)
        return cpl.time_ps - t0

    res = run_ok(scenario, vnet_platform())
    prop = cost("link.propagation_ps")
    assert res.result == serialisation_ps(12 + 8) + prop + cost("vnet.pe1.config_ps") + serialisation_ps(12 + 4 + 8) + prop
