"""AttnScope from Python: BertViz's two lines, opened in AttnScope's window.

    from attnscope import head_view
    head_view(outputs.attentions, tokens)     # Hugging Face, output_attentions=True

* :func:`head_view`, :func:`model_view`: BertViz's signatures and meanings; the data opens on
  the Heads or the Model tab of this user's running AttnScope window (or a new one).
* :func:`save`: the ``.npz`` AttnScope reads (attention, scores, q/k/v, tokens, sentence pairs,
  encoder–decoder); :func:`show`: open a file or arrays in the window.
* :func:`render`: a figure drawn headless by ``attnscope render`` (an IPython Image in a
  notebook).
* :func:`run`: a model folder run on a text by the program (``attnscope compute``), its arrays
  as NumPy; :func:`batch`: an analysis over a dataset (``attnscope batch``).
* :func:`attribute`: what each token contributed to a model's prediction (``attnscope
  attribute``), as a dict of NumPy arrays.

Pure Python and NumPy; PyTorch tensors are accepted without importing torch. The program is
found through $ATTNSCOPE_BIN, then PATH, then this clone's build (docs/python.md).
"""

from .app import find_app, render, show
from .attribution import attribute
from .files import save
from .runner import AttnScopeError, batch, run
from .views import head_view, model_view

__all__ = ["head_view", "model_view", "save", "show", "render", "find_app", "run", "batch",
           "AttnScopeError", "attribute"]
__version__ = "0.1.0"
