"""Every value of every preset says where it comes from: a source (a paper and its section, a
reference file of the repository), a fit (`pagelab calibrate`'s comment), or [A] assumed or [I]
inferred with the reason in words; a name (a channel's, a class's) needs none. The comments are
read as the report's preset pages read them (pagelab.report.presets): a key's own comment, the
comment above it, its section's, and for a calibrated preset the preset it was fitted from."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import ROOT
from pagelab.report import presets

PRESETS = sorted((ROOT / "presets").glob("*.toml"))
#: A reason is a section cited (§) or at least this many words of three letters or more,
#: besides the [A]/[I] mark (and a calibrated preset's "as in ORIGIN: ").
REASON_WORDS = 2


def unsourced(path: Path) -> list[str]:
    """The keys of `path` with no source, or marked [A]/[I] with no reason, each with what is
    missing."""
    out = []
    for p in presets.params(path)[1]:
        if p.basis == "none":
            out.append(f"{p.key}: no source")
        elif p.basis in ("assumed", "inferred"):
            reason = re.sub(r"\[[AI]\]", "", re.sub(r"^as in [\w.-]+: ", "", p.source))
            words = re.findall(r"[^\W\d_]{3,}", reason)
            if "§" not in reason and len(words) < REASON_WORDS:
                out.append(f"{p.key}: {p.basis} without a reason ({p.source!r})")
    return out


@pytest.mark.parametrize("path", PRESETS, ids=lambda p: p.stem)
def test_every_preset_value_has_a_source_or_a_reason(path):
    assert unsourced(path) == []


def test_the_check_names_a_value_without_a_source_or_a_reason(tmp_path):
    preset = tmp_path / "p.toml"
    preset.write_text(
        "[cpu]\n"
        "count = 1                # BARD §6\n"
        "reference_ns = 2000.0\n"
        "dispatch_slice_ms = 50.0 # [A]\n"
        "fault_us = 1.0           # [A] no CP-67 path length in BARD\n"
        "# [I] x\n"
        "sio_us = 2.0\n"
        "[[channel]]\n"
        'name = "ch1"\n'
        "# TETZ Background: one page per SIO\n"
        "[paging]\n"
        "sio_overhead_ms = 0.0\n"
        "[memory]                 # TETZ: four-kilobyte frames\n"
        "page_bytes = 4096\n"
    )
    assert unsourced(preset) == [
        "cpu.reference_ns: no source",
        "cpu.dispatch_slice_ms: assumed without a reason ('[A]')",
        "cpu.sio_us: inferred without a reason ('[I] x')",
    ]
