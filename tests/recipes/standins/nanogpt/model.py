"""A stand-in for nanoGPT's model.py (karpathy/nanoGPT at 3adf61e), for tests/recipes/: GPTConfig
with nanoGPT's fields, and a GPT whose parameters() are nanoGPT's tensors by shape (weights
only, no memory): token and position embeddings, per block ln_1, c_attn (n_embd x 3 n_embd),
c_proj, ln_2, c_fc (n_embd x 4 n_embd), c_proj, then ln_f; biases where `bias`; lm_head shares
the token embedding (weight tying), so it is not counted twice.
Line copied (model.py, GPT.__init__):
  print("number of parameters: %.2fM" % (self.get_num_params()/1e6,))
"""
from dataclasses import dataclass


@dataclass
class GPTConfig:
    block_size: int = 1024
    vocab_size: int = 50304
    n_layer: int = 12
    n_head: int = 12
    n_embd: int = 768
    dropout: float = 0.0
    bias: bool = True


class Shape:
    def __init__(self, *dims):
        self.dims = dims

    def numel(self):
        count = 1
        for d in self.dims:
            count *= d
        return count


class GPT:
    def __init__(self, config):
        assert config.n_embd % config.n_head == 0
        c, b = config.n_embd, config.bias
        self.shapes = [Shape(config.vocab_size, c), Shape(config.block_size, c)]
        for _ in range(config.n_layer):
            for rows, cols in ((c, 3 * c), (c, c), (c, 4 * c), (4 * c, c)):
                self.shapes.append(Shape(rows, cols))
                if b:
                    self.shapes.append(Shape(cols))
            self.shapes += [Shape(c), Shape(c)] + ([Shape(c), Shape(c)] if b else [])
        self.shapes += [Shape(c)] + ([Shape(c)] if b else [])
        print("number of parameters: %.2fM" % (self.get_num_params() / 1e6,))

    def parameters(self):
        return iter(self.shapes)

    def get_num_params(self, non_embedding=True):
        n = sum(p.numel() for p in self.shapes)
        return n - self.shapes[1].numel() if non_embedding else n
