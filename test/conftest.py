import json
import os
import re
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus"


def corpus_files() -> list[pathlib.Path]:
    files = sorted(CORPUS.rglob("*.ttir")) + sorted(CORPUS.rglob("*.ttgir"))
    return sorted(files)


def corpus_id(path: pathlib.Path) -> str:
    rel = path.relative_to(CORPUS)
    parts = rel.parts
    # model/HASH/kernel.ext -> model/HASH[:8]/kernel.ext (ids stay readable)
    if len(parts) == 5:  # inductor-.../model/triton/HASH/kernel.ext
        return f"{parts[1]}/{parts[3][:6]}/{parts[4][:70]}"
    return str(rel)


def num_warps_for(path: pathlib.Path) -> int | None:
    """num_warps to compile a .ttir with: the config's metadata, else its TTGIR's, else 4."""
    if path.suffix == ".ttgir":
        return None
    meta = path.with_suffix(".json")
    if meta.exists():
        return json.loads(meta.read_text())["num_warps"]
    ttgir = path.with_suffix(".ttgir")
    if ttgir.exists():
        m = re.search(r'"ttg.num-warps" = (\d+)', ttgir.read_text())
        if m:
            return int(m.group(1))
    return 4


@pytest.fixture(autouse=True, scope="session")
def _private_triton_cache(tmp_path_factory):
    """Triton must never serve a cached cubin to a test: one fresh cache per session."""
    os.environ["TRITON_CACHE_DIR"] = str(tmp_path_factory.mktemp("triton-cache"))
    yield
