"""A stand-in for litgpt's Python package (Lightning-AI/litgpt at 26857050), for tests/recipes/:
only what doc/recipes/litgpt.sh imports, `from litgpt import Tokenizer`. Its Tokenizer takes a
checkpoint folder as litgpt's does (NotADirectoryError when it does not exist) and encodes a
string into one token per word or punctuation mark, after a beginning-of-sequence token when
`bos` is true: a made-up tokenizer, deterministic, with fewer tokens than bytes as a BPE has."""
import re
from pathlib import Path


class Tokenizer:
    BOS = 0

    def __init__(self, checkpoint_dir):
        checkpoint_dir = Path(checkpoint_dir)
        if not checkpoint_dir.exists():
            raise NotADirectoryError(f"The checkpoint directory does not exist: {checkpoint_dir}")
        if not (checkpoint_dir / "tokenizer.json").is_file():
            raise NotImplementedError
        self.use_bos = False

    def encode(self, string, device=None, bos=None, eos=False, max_length=-1):
        ids = [1 + len(w) for w in re.findall(r"\w+|[^\w\s]", string)]
        if bos or (bos is None and self.use_bos):
            ids = [self.BOS] + ids
        return ids + [1] if eos else ids
