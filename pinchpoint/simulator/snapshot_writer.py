"""Write a whole snapshot directory for a spec: manifest, sysfs tree, command outputs and, with
a `[workload]`, the diskstats and /proc/net/dev samples and ZFS latency histograms."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from pinchpoint.model.snapshot import Manifest
from pinchpoint.simulator.discovery import KernelView, discover
from pinchpoint.simulator.fabric import SesTarget, build_fabric
from pinchpoint.simulator.fc import fc_view, write_fc
from pinchpoint.simulator.iscsi import write_iscsi
from pinchpoint.simulator.local_disks import local_disks, write_local_disks
from pinchpoint.simulator.network import write_network
from pinchpoint.simulator.nvme import write_nvme, write_nvme_targets
from pinchpoint.simulator.pci import PciWriter
from pinchpoint.simulator.ses_pages import SesPageSet, ses_page_set
from pinchpoint.simulator.ses_text import PAGES, page_text
from pinchpoint.simulator.smart import write_ahci_smart, write_smart
from pinchpoint.simulator.spec.host import HostSpec
from pinchpoint.simulator.stacked import write_stacked
from pinchpoint.simulator.sysfs_tree import write_sysfs
from pinchpoint.simulator.tree_writer import TreeWriter
from pinchpoint.simulator.workload import run_workload
from pinchpoint.simulator.workload_biolat import write_recording
from pinchpoint.simulator.workload_diskstats import write_samples
from pinchpoint.simulator.workload_netdev import write_net_dev
from pinchpoint.simulator.workload_zfs import write_iostat_w
from pinchpoint.simulator.zfs import write_zfs


def _prepare(out: Path, overwrite: bool) -> None:
    """An empty directory at `out`: refuse to touch a non-empty one unless told to."""
    if out.is_symlink() or (out.exists() and not out.is_dir()):
        raise FileExistsError(f"{out} exists and is not a directory")
    if out.is_dir() and any(out.iterdir()):
        if not overwrite:
            raise FileExistsError(f"{out} is not empty (pass overwrite=True to replace it)")
        shutil.rmtree(out)
    out.mkdir(parents=True, exist_ok=True)


def _manifest(spec: HostSpec, captured_at: datetime | None) -> bytes:
    """manifest.json: a simulated snapshot, fixed time unless given."""
    manifest = Manifest(
        hostname=spec.host.hostname,
        captured_at=captured_at or spec.host.captured_at,
        kernel=spec.host.kernel,
        tools={},
        simulated=True,
    )
    return (manifest.model_dump_json(indent=2) + "\n").encode()


def kernel_view(spec: HostSpec) -> KernelView:
    """How the kernel would name the host a spec describes (no files written)."""
    return discover(build_fabric(spec))


def write_snapshot(
    spec: HostSpec,
    out: Path,
    overwrite: bool = False,
    captured_at: datetime | None = None,
    share_identical_files: bool = False,
    progress: Callable[[str], None] | None = None,
) -> None:
    """Write the snapshot of the imagined host into `out` (must be empty unless `overwrite`).

    `share_identical_files` makes files of equal content hard links to one inode (for big
    benchmark hosts on file systems where creating inodes is slow); never edit such a
    snapshot in place. `progress` hears each step as `what n/total` (the CLI's progress bar).
    """
    steps = iter(enumerate(_STEPS, 1))

    def step() -> None:
        number, what = next(steps)
        if progress is not None:
            progress(f"{what} {number}/{len(_STEPS)}")

    _prepare(out, overwrite)
    step()
    view = kernel_view(spec)
    pages: dict[SesTarget, SesPageSet] = {}
    for dev in view.ses_devices():
        assert dev.ses is not None
        pages.setdefault(dev.ses, ses_page_set(dev.ses))
    writer = TreeWriter(os.fspath(out), share=share_identical_files)
    writer.write("manifest.json", _manifest(spec, captured_at))
    pci = PciWriter(writer)
    step()
    write_sysfs(writer, view, pages, pci)
    step()
    write_network(writer, pci, spec)
    fc = fc_view(spec, view)
    write_fc(writer, pci, fc, spec)
    step()
    write_smart(writer, view, spec, fc.first_paths())
    step()
    write_nvme(writer, pci, spec)
    local = local_disks(spec, view, fc)
    write_local_disks(writer, pci, spec, local)
    write_ahci_smart(writer, spec, local)
    write_nvme_targets(writer, spec)
    write_iscsi(writer, spec, view, fc)
    write_stacked(writer, spec, fc)
    write_zfs(writer, view, spec)
    step()
    workload = run_workload(spec, view, fc)
    if workload is not None:
        write_samples(writer, spec, view, fc, workload)
        write_net_dev(writer, spec, workload.sample_times_s)
        if spec.workload is not None and spec.workload.record_latency:
            write_recording(writer, spec, view, fc, workload)
    write_iostat_w(writer, spec, view, workload)
    writer.attrs("proc/sys/kernel", {"hostname": spec.host.hostname, "osrelease": spec.host.kernel})
    step()
    writer.mkdir("commands/sg_ses")
    for dev in view.ses_devices():
        assert dev.ses is not None
        for page in PAGES:
            text = page_text(pages[dev.ses], page)
            writer.write(f"commands/sg_ses/{dev.sg_name}.{page}.txt", text.encode())


# what `write_snapshot` tells its `progress`, in order
_STEPS = (
    "fabric",
    "sysfs",
    "network and FC",
    "SMART",
    "NVMe, disks, iSCSI, ZFS",
    "workload",
    "SES pages",
)
