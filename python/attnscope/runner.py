"""AttnScope's own runner from Python: ``attnscope compute`` on one prompt (:func:`run`) and
``attnscope batch`` over a dataset (:func:`batch`), their results as NumPy arrays.

The program does the work (no torch, no compiled extension); its progress is streamed to the
notebook's output and a failure raises :class:`AttnScopeError` with the program's message.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Union

import numpy as np

from .app import find_app

PathLike = Union[str, "os.PathLike[str]"]
Progress = Union[bool, Callable[[Dict[str, Any]], None]]


class AttnScopeError(RuntimeError):
    """The attnscope program failed: ``message`` is what it said, ``code`` its exit code
    (1 usage, 2 input, 3 output, 4 resources)."""

    def __init__(self, message: str, code: int):
        super().__init__(message)
        self.message = message
        self.code = code


def _flags(options: Mapping[str, Any]) -> List[str]:
    """Keyword options as command-line flags: ``ablate_mode="mean"`` → ``--ablate-mode mean``,
    ``True`` → the bare flag, ``False``/``None`` → nothing, a list → comma-joined."""
    out: List[str] = []
    for key, value in options.items():
        if value is None or value is False:
            continue
        flag = "--" + key.replace("_", "-")
        if value is True:
            out.append(flag)
        elif isinstance(value, (list, tuple)):
            out += [flag, ",".join(str(v) for v in value)]
        else:
            out += [flag, str(value)]
    return out


def _load(path: str) -> Dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as z:
        return {key: z[key] for key in z.files}


def _show(event: Dict[str, Any]) -> None:
    """The default progress: one line rewritten in place (a notebook's output, or a terminal)."""
    if event.get("finished"):
        sys.stderr.write(f"\rattnscope batch: {event['examples']} examples, "
                         f"{event['skipped']} skipped, done\n")
    else:
        eta = int(round(event.get("eta_s", 0)))
        sys.stderr.write(f"\rattnscope batch: {event['done']}/{event['total']} "
                         f"({event['rate']:.2f}/s, {eta // 60}:{eta % 60:02d} left)")
    sys.stderr.flush()


def _execute(command: List[str], progress: Progress) -> None:
    """Runs COMMAND, handing each JSON progress line of its stderr to PROGRESS as it comes;
    raises AttnScopeError with the rest of stderr when it fails."""
    report = _show if progress is True else (progress or None)
    said: List[str] = []
    with subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True, encoding="utf-8",
                          errors="replace") as process:
        assert process.stderr is not None
        for line in process.stderr:
            event = None
            if line.startswith("{"):
                try:
                    event = json.loads(line)
                except ValueError:
                    event = None
            if isinstance(event, dict) and ("done" in event or "finished" in event):
                if report:
                    report(event)
            else:
                said.append(line)
        code = process.wait()
    if code != 0:
        message = "".join(said).strip() or f"{command[1]} exited {code}"
        if message.startswith("attnscope: "):
            message = message[len("attnscope: "):]
        raise AttnScopeError(message, code)


def run(model_dir: PathLike, text: str, **options: Any) -> Dict[str, np.ndarray]:
    """Runs the model folder MODEL_DIR on TEXT with ``attnscope compute`` and returns what it
    writes, as NumPy arrays: ``weights`` (and the other stages) [L,H,n,n], ``token_ids``,
    ``logits``, and what options add (``logit_lens=True`` → ``lens_logits``; ``attribute=ID``
    → the attributions; ``ablate=["0.1"]``, ``knockout``, ``stages="weights"``, …: every
    ``compute`` option, ``_`` for ``-``).

    Raises:
        AttnScopeError: the program refused or failed (its message, e.g. a missing folder).
    """
    with tempfile.TemporaryDirectory(prefix="attnscope-run-") as folder:
        out = os.path.join(folder, "run.npz")
        _execute([find_app(), "compute", "--model", os.fspath(model_dir), "--text", text,
                  *_flags(options), "-o", out], False)
        return _load(out)


def batch(model_dir: PathLike, dataset: Union[PathLike, Iterable[Mapping[str, Any]]],
          analysis: str = "patch", *, out: Optional[PathLike] = None,
          progress: Progress = True, **options: Any) -> Dict[str, np.ndarray]:
    """Runs ``attnscope batch --analysis ANALYSIS`` (patch, ablate, census, compute or
    attribute) over DATASET — a JSON Lines file, or a list of dicts written to one — and returns
    the output's arrays: ``per_example/<name>`` [E,…], ``aggregate/<name>_mean`` and ``_std``,
    ``aggregate/count``, ``examples/…``, ``skipped/…`` (docs/datasets.md). OPTIONS are batch's
    (``on_error="skip"``, ``shard="0/4"``, ``ablate_mode="mean"``; attribute's ``methods=[…]``,
    ``steps=M``, ``faithfulness=K``). OUT keeps the .npz (and its journal: a call again after
    an interruption resumes); by default it is temporary.
    PROGRESS: True shows a line that updates in place, a callable gets each JSON event, False
    nothing.

    Raises:
        AttnScopeError: the program refused or failed (a bad line under on_error="stop", a
            changed dataset on resume, …), with its message.
    """
    with tempfile.TemporaryDirectory(prefix="attnscope-batch-") as folder:
        if isinstance(dataset, (str, os.PathLike)):
            path = os.fspath(dataset)
        else:
            path = os.path.join(folder, "dataset.jsonl")
            with open(path, "w", encoding="utf-8") as f:
                for example in dataset:
                    f.write(json.dumps(dict(example), ensure_ascii=False) + "\n")
        target = os.fspath(out) if out is not None else os.path.join(folder, "batch.npz")
        _execute([find_app(), "batch", "--model", os.fspath(model_dir), "--dataset", path,
                  "--analysis", analysis, *_flags(options), "--progress", "json", "-o", target],
                 progress)
        return _load(target)
