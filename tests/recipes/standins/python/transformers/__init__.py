"""A stand-in for the parts of Hugging Face transformers that doc/recipes/hf_trainer.py uses, for
tests/recipes/ (Debian ships no transformers): GPT2Config, GPT2LMHeadModel.num_parameters(),
TrainingArguments (an unknown keyword is a TypeError, as for the dataclass) and a Trainer whose
train() and evaluate() read the datasets as the real one does (items of input_ids and labels)
and log into state.log_history what the real one logs, at the same steps; state.save_to_json
writes trainer_state.json as the real one does. It trains nothing: eval_loss is curve.loss() of
args.seed.

Lines copied (huggingface/transformers):
  trainer.py (000945a9), Trainer.log:
      logs["epoch"] = self.state.epoch
      logs["num_input_tokens_seen"] = self.state.num_input_tokens_seen
      output = {**logs, **{"step": self.state.global_step}}
      self.state.log_history.append(output)
  trainer.py, _inner_training_loop: `if args.eval_on_start: self._evaluate(...)` before step 1
  trainer_callback.py (55093b75), DefaultFlowCallback.on_step_end: log when
      state.global_step % state.logging_steps == 0; evaluate when eval_strategy is "steps" and
      state.global_step % state.eval_steps == 0
  trainer_callback.py, TrainerState.save_to_json:
      json_string = json.dumps(dataclasses.asdict(self), indent=2, sort_keys=True) + "\\n"
An eval's metrics: eval_loss, eval_runtime, eval_samples_per_second, eval_steps_per_second.
"""
import dataclasses
import json
import os
import sys
from typing import Dict, List, Optional

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
import curve  # noqa: E402


class GPT2Config:
    KEYS = {"vocab_size", "n_positions", "n_embd", "n_layer", "n_head", "n_inner",
            "activation_function", "resid_pdrop", "embd_pdrop", "attn_pdrop",
            "layer_norm_epsilon", "initializer_range", "bos_token_id", "eos_token_id"}

    def __init__(self, **kwargs):
        unknown = set(kwargs) - self.KEYS
        assert not unknown, unknown
        self.__dict__.update(kwargs)


class GPT2LMHeadModel:
    def __init__(self, config):
        self.config = config

    def num_parameters(self):
        """GPT-2's: token and position embeddings, per block two layer norms, attention's qkv and
        projection, the MLP's two layers (all with biases), a final layer norm; lm_head tied."""
        c, cfg = self.config.n_embd, self.config
        block = 2 * c + (3 * c * c + 3 * c) + (c * c + c) + 2 * c + (4 * c * c + 4 * c) + (4 * c * c + c)
        return cfg.vocab_size * c + cfg.n_positions * c + cfg.n_layer * block + 2 * c


@dataclasses.dataclass
class TrainingArguments:
    output_dir: str
    max_steps: int = -1
    per_device_train_batch_size: int = 8
    per_device_eval_batch_size: int = 8
    learning_rate: float = 5e-5
    warmup_steps: int = 0
    lr_scheduler_type: str = "linear"
    lr_scheduler_kwargs: Optional[dict] = None
    weight_decay: float = 0.0
    adam_beta1: float = 0.9
    adam_beta2: float = 0.999
    max_grad_norm: float = 1.0
    eval_strategy: str = "no"
    eval_steps: Optional[int] = None
    eval_on_start: bool = False
    logging_steps: int = 500
    save_strategy: str = "steps"
    report_to: Optional[list] = None
    seed: int = 42
    include_num_input_tokens_seen: object = "no"
    bf16: bool = False

    def __post_init__(self):
        if isinstance(self.include_num_input_tokens_seen, bool):
            self.include_num_input_tokens_seen = "all" if self.include_num_input_tokens_seen else "no"


@dataclasses.dataclass
class TrainerState:
    epoch: Optional[float] = None
    global_step: int = 0
    max_steps: int = 0
    logging_steps: int = 500
    eval_steps: int = 500
    save_steps: int = 500
    train_batch_size: int = None
    num_train_epochs: int = 0
    num_input_tokens_seen: int = 0
    total_flos: float = 0
    log_history: List[Dict[str, float]] = dataclasses.field(default_factory=list)
    best_metric: Optional[float] = None
    best_model_checkpoint: Optional[str] = None
    is_local_process_zero: bool = True
    is_world_process_zero: bool = True
    is_hyper_param_search: bool = False
    trial_name: str = None
    trial_params: Dict[str, object] = None
    stateful_callbacks: Dict[str, object] = dataclasses.field(default_factory=dict)

    def save_to_json(self, json_path):
        json_string = json.dumps(dataclasses.asdict(self), indent=2, sort_keys=True) + "\n"
        with open(json_path, "w", encoding="utf-8") as f:
            f.write(json_string)


class Trainer:
    def __init__(self, model, args, train_dataset=None, eval_dataset=None):
        self.model, self.args = model, args
        self.train_dataset, self.eval_dataset = train_dataset, eval_dataset
        self.state = TrainerState()

    def log(self, logs):
        if self.state.epoch is not None:
            logs["epoch"] = self.state.epoch
        if self.args.include_num_input_tokens_seen != "no":
            logs["num_input_tokens_seen"] = self.state.num_input_tokens_seen
        output = {**logs, **{"step": self.state.global_step}}
        self.state.log_history.append(output)

    def _tokens(self, item):
        ids, labels = item["input_ids"], item["labels"]
        assert ids.shape == labels.shape and ids.dim() == 1 and int(ids.max()) < 257
        return ids.numel()

    def evaluate(self):
        for i in range(len(self.eval_dataset)):
            self._tokens(self.eval_dataset[i])
        loss = curve.loss(curve.arm(), self.args.seed, self.state.global_step, self.state.max_steps)
        metrics = {"eval_loss": loss, "eval_runtime": 0.01, "eval_samples_per_second": 100.0,
                   "eval_steps_per_second": 10.0}
        self.log(metrics)
        return metrics

    def train(self):
        a, s = self.args, self.state
        s.max_steps, s.logging_steps, s.eval_steps = a.max_steps, a.logging_steps, a.eval_steps
        s.train_batch_size, s.num_train_epochs, s.epoch = a.per_device_train_batch_size, 1, 0.0
        if a.eval_on_start:
            self.evaluate()
        batch = a.per_device_train_batch_size
        for step in range(1, a.max_steps + 1):
            for i in range((step - 1) * batch, step * batch):
                s.num_input_tokens_seen += self._tokens(self.train_dataset[i])
            s.global_step, s.epoch = step, step / a.max_steps
            if step % s.logging_steps == 0:
                loss = curve.loss(curve.arm(), a.seed, step, a.max_steps) + 0.05
                self.log({"loss": loss, "grad_norm": 1.0, "learning_rate": a.learning_rate})
            if a.eval_strategy == "steps" and step % s.eval_steps == 0:
                self.evaluate()
        self.log({"train_runtime": 1.0, "train_samples_per_second": 1.0,
                  "train_steps_per_second": 1.0, "total_flos": 0.0, "train_loss": 0.0})
