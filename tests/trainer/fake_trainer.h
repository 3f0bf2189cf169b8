#pragma once
// A fake trainer for the protocol tests (doc/trainers.md): a small Python script (standard library
// only, /usr/bin/python3) that reads the PREFLIGHT_* environment and writes a curve in the format
// asked for, as a trainer would. Its curves are a fixed function of arm, seed and step (the
// curated arm learns twice as fast), or the curves of a builtin trial folder (--replay).
// Failures are switched on by files in a control folder (--control DIR), so that removing the file
// and rerunning the same command (the same template, the same fingerprint) resumes the trial:
//   fail-<run>     exit 3 with a message on stderr       nocurve-<run>  exit 0, no curve
//   short-<run>    the curve stops one eval early         garbage-<run>  a malformed last line
//   double-<run>   twice the tokens per step              evals-<run>    one eval step missing
// --launches FILE appends "<arm>-s<seed>" per launch; --sleep S waits S seconds after each eval.

#include <string>

#include "testing/testing.h"

namespace preflight::testing {

inline constexpr char kFakeTrainer[] = R"PY(
import argparse, json, math, os, sys, time
p = argparse.ArgumentParser()
p.add_argument('--format', default='jsonl')
p.add_argument('--control', default='')
p.add_argument('--sleep', type=float, default=0.0)
p.add_argument('--launches', default='')
p.add_argument('--replay', default='')
p.add_argument('--run-json', action='store_true')
a = p.parse_args()
E = os.environ
arm, seed = E['PREFLIGHT_ARM'], int(E['PREFLIGHT_SEED'])
run = '%s-s%d' % (arm, seed)
steps, every = int(E['PREFLIGHT_STEPS']), int(E['PREFLIGHT_EVAL_EVERY'])
tps = int(E['PREFLIGHT_TOKENS_PER_STEP'])
curve = E['PREFLIGHT_CURVE']
if os.path.realpath(os.getcwd()) != os.path.realpath(E['PREFLIGHT_RUN_DIR']):
    sys.exit('fake trainer: not started in its run folder')
for key in ('TRAIN_BIN', 'TRAIN_JSONL', 'TRAIN_LLMC', 'EVAL_BIN', 'EVAL_JSONL', 'EVAL_LLMC'):
    if not os.path.exists(E['PREFLIGHT_' + key]):
        sys.exit('fake trainer: no ' + E['PREFLIGHT_' + key])
def switched(name):
    return a.control and os.path.exists(os.path.join(a.control, name + '-' + run))
if a.launches:
    with open(a.launches, 'a') as f:
        f.write(run + '\n')
if switched('fail'):
    print('fake trainer: boom in ' + run, file=sys.stderr)
    sys.exit(3)
if a.replay:
    with open(os.path.join(a.replay, 'runs', run, 'curve.jsonl')) as f:
        pts = [(o['step'], o['eval_bpb']) for o in map(json.loads, f)]
else:
    grid = list(range(0, steps, every)) + [steps]
    if switched('evals'):
        grid.remove(every)
    rate = 0.12 if arm == 'curated' else 0.06
    pts = [(s, 2.0 + 3.0 * math.exp(-rate * s) + 0.01 * seed) for s in grid]
if switched('short'):
    pts = pts[:-1]
if switched('double'):
    tps *= 2
LN2 = math.log(2.0)
def text_of(points):
    f = a.format
    if f == 'jsonl':
        return ''.join(json.dumps({'step': s, 'tokens': s * tps, 'eval_bpb': b}) + '\n'
                       for s, b in points)
    if f == 'jsonl-loss':
        return ''.join(json.dumps({'step': s, 'tokens': s * tps, 'eval_loss': b * LN2}) + '\n'
                       for s, b in points)
    if f == 'csv':
        rows = ['iter,step,train_loss,val_loss,tokens']
        for s, b in points:
            rows.append('%d,%d,%r,,%d' % (s + 1, s, b * LN2 + 0.1, s * tps))
            rows.append('%d,%d,,%r,%d' % (s + 1, s, b * LN2, s * tps))
        return '\n'.join(rows) + '\n'
    if f == 'llmc':
        return ''.join('s:%d trl:%r\ns:%d tel:%r\n' % (s, b * LN2 + 0.1, s, b * LN2)
                       for s, b in points)
    if f == 'hf':
        hist = []
        for s, b in points:
            hist.append({'loss': b * LN2 + 0.1, 'step': s})
            hist.append({'eval_loss': b * LN2, 'step': s, 'num_input_tokens_seen': s * tps})
        return json.dumps({'global_step': points[-1][0], 'log_history': hist})
    raise SystemExit('fake trainer: unknown format ' + f)
for i in range(1, len(pts) + 1):
    if not switched('nocurve'):
        if a.format == 'nanogpt':
            s, b = pts[i - 1]
            print('step %d: train loss %r, val loss %r' % (s, b * LN2 + 0.1, b * LN2), flush=True)
        else:
            text = text_of(pts[:i])
            if switched('garbage') and i == len(pts):
                text += '{"step": oops}\n'
            with open(curve + '.tmp', 'w') as f:
                f.write(text)
            os.replace(curve + '.tmp', curve)
    time.sleep(a.sleep)
if a.run_json:
    with open('run.json', 'w') as f:
        json.dump({'params': 4321, 'flops_per_step': 1.5e6, 'tokens_per_step': tps,
                   'train_seconds': 0.01, 'device': 'cpu'}, f)
)PY";

// Writes the fake trainer to DIR/fake_trainer.py and returns its path.
inline std::string WriteFakeTrainer(const std::string& dir) {
  const std::string path = dir + "/fake_trainer.py";
  WriteText(path, kFakeTrainer);
  return path;
}

}  // namespace preflight::testing
