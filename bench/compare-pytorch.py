"""PyTorch's side of bench/compare-pytorch, the driver of every side (taflab,
PyTorch, ONNX Runtime), and the report that sets them against each other.
bench/compare-pytorch runs it; by hand:

    OMP_NUM_THREADS=N /usr/bin/python3 bench/compare-pytorch.py run --go BIN --threads N \
            [--rounds R] [--seconds S] [--only infer-b64,train-b256] \
            [--no-torch] [--ort-model NET.onnx --ort-modules NODE_MODULES] > runN.json
        starts BIN (the built bench/compare-pytorch-go) with -serve and
        GOMAXPROCS=N (and compare-onnxruntime.mjs under node with the
        exported model, if --ort-model), and measures each figure on every
        side in turn, taflab, PyTorch, then ONNX Runtime, for R rounds; a
        side's figure is its best round. Set OMP_NUM_THREADS=N: the script
        calls torch.set_num_threads(N) too, but OpenMP sizes its pool from
        the variable.
    /usr/bin/python3 bench/compare-pytorch.py report run1.json run2.json
        prints one `NAME ratio=X ratio-onnxruntime=Y vs-faster=Z` line per
        figure (X = taflab / PyTorch throughput, Y = taflab / ONNX Runtime,
        Z against the faster of the two; -1t from the 1-thread run, -allt
        from the other) and a table of every side. A figure measured while other processes took
        more than 10% of the cores gets a "(disturbed: ...)" note.

Figures are infer-bN (positions/s of inference at batch N) and train-bN
(samples/s of one training step at batch N); the default set is infer-b1,
infer-b16, infer-b64, infer-b256 and train-b256.

The network (taflab net.DefaultConfig: 6 blocks of 64 channels): input 15
planes of 11x11; stem conv3x3(15->C)+BN+ReLU; B residual blocks (conv3x3,
BN, ReLU, conv3x3, BN, +skip, ReLU); policy head conv3x3(C->C)+BN+ReLU,
conv1x1(C->40)+bias, transposed to square-major (4840 logits); value head
conv1x1(C->4)+BN+ReLU, flatten 484, Linear(484->64)+ReLU, Linear(64->3),
softmax. float32, NCHW.

PyTorch runs at its best: inference through torch.jit.trace, torch.jit.freeze
(which folds the batch norms, as taflab's inference does) and
torch.jit.optimize_for_inference, under torch.inference_mode, warmed up; the
frozen graph without optimize_for_inference is timed too. Where the CPU has
AMX-BF16 or AVX512-BF16 (/proc/cpuinfo's amx_bf16, avx512_bf16), bfloat16 as
well: the model's weights and inputs in bfloat16 (frozen, and frozen with
optimize_for_inference), and float32 weights under
torch.autocast("cpu", torch.bfloat16) (eager, and traced and frozen). The
fastest of them is the figure, and the table names it. Training is float32,
and with autocast to bfloat16 on such a CPU, the faster counting. Training is model.train(), SGD with momentum 0.9 and weight
decay 1e-4 on the conv/linear weights (taflab's L2), the loss taflab's: policy
cross-entropy over the legal moves (mask given as an input) + win/draw/loss
cross-entropy.
"""

import argparse
import json
import os
import statistics
import sys
import time

BOARD = 11
SQUARES = BOARD * BOARD
PLANES = 15
MOVES_PER_SQUARE = 40
POLICY = SQUARES * MOVES_PER_SQUARE
FIGURES = ["infer-b1", "infer-b16", "infer-b64", "infer-b256", "train-b256"]


def build(torch, blocks, channels, value_channels=4, value_hidden=64):
    nn = torch.nn

    class ConvBN(nn.Module):
        def __init__(self, k, cin, cout):
            super().__init__()
            self.conv = nn.Conv2d(cin, cout, k, padding=k // 2, bias=False)
            self.bn = nn.BatchNorm2d(cout, eps=1e-5, momentum=0.05)

        def forward(self, x):
            return self.bn(self.conv(x))

    class Block(nn.Module):
        def __init__(self, c):
            super().__init__()
            self.a = ConvBN(3, c, c)
            self.b = ConvBN(3, c, c)

        def forward(self, x):
            return torch.relu(self.b(torch.relu(self.a(x))) + x)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = ConvBN(3, PLANES, channels)
            self.blocks = nn.Sequential(*[Block(channels) for _ in range(blocks)])
            self.pol = ConvBN(3, channels, channels)
            self.pol_out = nn.Conv2d(channels, MOVES_PER_SQUARE, 1, bias=True)
            self.val = ConvBN(1, channels, value_channels)
            self.fc1 = nn.Linear(SQUARES * value_channels, value_hidden)
            self.fc2 = nn.Linear(value_hidden, 3)

        def trunk_heads(self, x):
            h = self.blocks(torch.relu(self.stem(x)))
            p = self.pol_out(torch.relu(self.pol(h)))
            # square-major, as taflab's policy: [b, 40, 11, 11] -> [b, 121*40]
            logits = p.permute(0, 2, 3, 1).reshape(x.shape[0], POLICY)
            v = torch.relu(self.val(h)).flatten(1)
            z = self.fc2(torch.relu(self.fc1(v)))
            return logits, z

        def forward(self, x):
            logits, z = self.trunk_heads(x)
            return logits, torch.softmax(z, dim=1)

    model = Net()
    # Non-trivial batch norm statistics, so that folding has work to do.
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.running_mean.uniform_(-0.1, 0.1)
                m.running_var.uniform_(0.5, 1.5)
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.1, 0.1)
    return model


def timed(call, batch, budget):
    """Warms call up (at least 2 calls and a quarter of the budget), times
    calls until the budget is spent (at least 3, at most 2000) and returns
    (batch / median seconds, median ms, reps): the same rule as the Go side."""
    start = time.perf_counter()
    i = 0
    while i < 2 or time.perf_counter() - start < budget / 4:
        call()
        i += 1
    times = []
    start = time.perf_counter()
    while len(times) < 3 or (time.perf_counter() - start < budget and len(times) < 2000):
        t0 = time.perf_counter()
        call()
        times.append(time.perf_counter() - t0)
    med = statistics.median(times)
    return batch / med, med * 1000, len(times)


def cpu_has_bf16():
    """Whether the CPU has bfloat16 instructions PyTorch's oneDNN uses
    (AMX-BF16 tiles or AVX512-BF16 dot products), by /proc/cpuinfo."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    flags = set(line.split(":", 1)[1].split())
                    return bool(flags & {"amx_bf16", "avx512_bf16"})
    except OSError:
        pass
    return False


def random_inputs(torch, b, gen):
    """Board-like inputs: sparse 0/1 piece planes, constant rule planes."""
    x = torch.zeros(b, PLANES, BOARD, BOARD)
    x[:, 0:3] = (torch.rand(b, 3, BOARD, BOARD, generator=gen) < 0.15).float()
    x[:, 3] = (torch.rand(b, 1, 1, generator=gen) < 0.5).float()
    x[:, 4:7] = (torch.rand(1, 3, BOARD, BOARD, generator=gen) < 0.1).float()
    x[:, 6] = 1
    x[:, 7:15] = (torch.rand(1, 8, 1, 1, generator=gen) < 0.5).float()
    return x


class Torch:
    """PyTorch's side: the figures' models and inputs, made once and kept, so
    that a figure measured again (the next round) times the same warm
    objects."""

    def __init__(self, threads, blocks, channels, seconds):
        import torch

        self.torch = torch
        torch.set_num_threads(threads)
        torch.manual_seed(1)
        self.gen = torch.Generator().manual_seed(2026)
        self.blocks, self.channels, self.seconds = blocks, channels, seconds
        self.bf16 = cpu_has_bf16()
        self.calls = {}
        self.meta = {"side": "pytorch", "threads": threads, "torch": torch.__version__,
                     "omp_num_threads": os.environ.get("OMP_NUM_THREADS"),
                     "torch_threads": torch.get_num_threads(),
                     "blocks": blocks, "channels": channels, "bf16": self.bf16,
                     "params": sum(p.numel() for p in build(torch, blocks, channels).parameters())}

    def figure(self, name):
        if name not in self.calls:
            self.calls[name] = self.infer(name) if name.startswith("infer-b") else self.train(name)
        b, variants = self.calls[name]
        best, tried = None, {}
        for how, call in variants:
            with self.torch.inference_mode(name.startswith("infer-b")):
                ps, ms, reps = timed(call, b, self.seconds)
            tried[how] = ps
            if best is None or ps > best["per_second"]:
                best = {"name": name, "batch": b, "per_second": ps, "median_ms": ms, "reps": reps, "how": how}
        best["tried"] = tried
        return best

    def infer(self, name):
        torch = self.torch
        b = int(name[len("infer-b"):])
        model = build(torch, self.blocks, self.channels).eval()
        x = random_inputs(torch, b, self.gen)
        with torch.inference_mode():
            frozen = torch.jit.freeze(torch.jit.trace(model, x))
            # (how, callable, its input, tolerance against the eager float32 model)
            variants = [("float32, freeze+optimize_for_inference", torch.jit.optimize_for_inference(frozen), x, 1e-2),
                        ("float32, freeze", frozen, x, 1e-2)]
            if self.bf16:
                half = build(torch, self.blocks, self.channels).eval()
                half.load_state_dict(model.state_dict())
                half = half.to(torch.bfloat16)
                xb = x.to(torch.bfloat16)
                variants.append(("bfloat16 weights, freeze", torch.jit.freeze(torch.jit.trace(half, xb)), xb, 0.1))
                variants.append(("bfloat16 weights, freeze+optimize_for_inference",
                                 torch.jit.optimize_for_inference(torch.jit.freeze(torch.jit.trace(half, xb))), xb, 0.1))

                class Autocast(torch.nn.Module):
                    def __init__(self, m):
                        super().__init__()
                        self.m = m

                    def forward(self, x):
                        with torch.autocast("cpu", dtype=torch.bfloat16):
                            return self.m(x)

                variants.append(("autocast bfloat16, eager", Autocast(model), x, 0.1))
                torch._C._jit_set_autocast_mode(False)  # trace the casts autocast makes
                with torch.autocast("cpu", dtype=torch.bfloat16):
                    traced = torch.jit.freeze(torch.jit.trace(model, x, check_trace=False))
                torch._C._jit_set_autocast_mode(True)
                variants.append(("autocast bfloat16, trace+freeze", traced, x, 0.1))
            # The same outputs as the eager model (batch norms folded;
            # bfloat16 within its precision).
            want_logits, want_wdl = model(x)
            for how, m, inp, tol in variants:
                for _ in range(3):  # the profiling executor optimizes on the 2nd call
                    logits, wdl = m(inp)
                err = max((logits.float() - want_logits).abs().max().item(), (wdl.float() - want_wdl).abs().max().item())
                if err > tol:
                    raise SystemExit(f"{name}: {how} differs from the eager model by {err}")

        return b, [(how, (lambda m, inp: lambda: m(inp))(m, inp)) for how, m, inp, _ in variants]

    def train(self, name):
        torch = self.torch
        b = int(name[len("train-b"):])
        model = build(torch, self.blocks, self.channels).train()
        x = random_inputs(torch, b, self.gen)
        # Legal-move mask (a mid-game position has ~60-150 legal moves of
        # 4840 entries) and a policy target over the legal moves.
        legal = torch.rand(b, POLICY, generator=self.gen) < 100 / POLICY
        legal[:, 0] = True
        target = torch.rand(b, POLICY, generator=self.gen) * legal
        target = target / target.sum(dim=1, keepdim=True)
        # -inf would give 0 * -inf = nan in the cross-entropy: a large
        # negative offset on the illegal moves' logits instead.
        mask_add = torch.where(legal, 0.0, -1e9)
        result = torch.randint(0, 3, (b,), generator=self.gen)
        # L2 on the conv and linear weights only, as taflab's.
        decay = [p for n, p in model.named_parameters() if n.endswith("weight") and p.dim() > 1]
        no_decay = [p for n, p in model.named_parameters() if not (n.endswith("weight") and p.dim() > 1)]
        opt = torch.optim.SGD([{"params": decay, "weight_decay": 1e-4},
                               {"params": no_decay, "weight_decay": 0.0}], lr=0.02, momentum=0.9)

        def step(autocast=False):
            opt.zero_grad(set_to_none=True)
            # The forward pass under autocast, the backward pass outside it
            # (PyTorch's advice).
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=autocast):
                logits, z = model.trunk_heads(x)
                logp = torch.log_softmax(logits.float() + mask_add, dim=1)
                policy_loss = -(target * logp).sum(dim=1).mean()
                value_loss = torch.nn.functional.cross_entropy(z.float(), result)
            (policy_loss + value_loss).backward()
            opt.step()

        def step_autocast():
            step(autocast=True)

        variants = [("float32, train() + SGD momentum", step)]
        if self.bf16:
            variants.append(("autocast bfloat16, train() + SGD momentum", step_autocast))
        return b, variants


def busy_jiffies():
    """The machine's busy CPU time so far, in clock ticks (all cores)."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    # user nice system idle iowait irq softirq steal ...
    return v[0] + v[1] + v[2] + v[5] + v[6] + v[7]


def process_jiffies(pid):
    """A process's CPU time so far (all its threads), in clock ticks."""
    with open(f"/proc/{pid}/stat") as f:
        v = f.read().rsplit(")", 1)[1].split()
    return int(v[11]) + int(v[12])  # utime, stime


class Others:
    """Measures how busy the machine is with other processes than ours while
    a figure is measured: other processes' CPU time over the wall time of
    every core, in percent. A high figure means that the numbers are
    disturbed (PyTorch's OpenMP threads, which spin at barriers, suffer most
    from sharing the cores)."""

    def __init__(self, pids):
        self.pids = pids
        self.hz = os.sysconf("SC_CLK_TCK")
        self.cores = os.cpu_count()

    def __enter__(self):
        self.t0 = time.perf_counter()
        self.busy0 = busy_jiffies()
        self.own0 = sum(process_jiffies(p) for p in self.pids)
        return self

    def __exit__(self, *exc):
        wall = time.perf_counter() - self.t0
        other = (busy_jiffies() - self.busy0) - (sum(process_jiffies(p) for p in self.pids) - self.own0)
        self.percent = max(0.0, 100 * other / (wall * self.hz * self.cores))
        return False


class Served:
    """A side that runs as another process answering figure names on its
    standard input with a line of JSON each (the Go side and ONNX
    Runtime's): the first line it prints is about itself."""

    def __init__(self, what, argv, env=None):
        import subprocess

        self.what = what
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, text=True, bufsize=1)
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit(f"compare-pytorch: {what} did not start (exit status {self.proc.wait()})")
        self.meta = json.loads(line)
        self.pid = self.proc.pid

    def figure(self, name):
        self.proc.stdin.write(name + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit(f"compare-pytorch: {self.what} stopped at {name} (exit status {self.proc.wait()})")
        return json.loads(line)

    def close(self):
        self.proc.stdin.close()
        if self.proc.wait() != 0:
            raise SystemExit(f"compare-pytorch: {self.what} failed (exit status {self.proc.returncode})")


def run(args):
    """Measures every side at one thread count, figure by figure in turn
    (taflab, then PyTorch, then ONNX Runtime), for a number of rounds; a
    side's figure is its best round (the least disturbed by whatever else
    the machine runs)."""
    names = args.only.split(",") if args.only else FIGURES
    env = dict(os.environ, GOMAXPROCS=str(args.threads))
    go = Served("the Go side", [args.go, "-serve", "-threads", str(args.threads), "-seconds", str(args.seconds),
                                "-blocks", str(args.blocks), "-channels", str(args.channels),
                                "-precision", args.precision], env)
    ours = go.meta
    peers = {}  # side -> object with figure(name) and meta
    if not args.no_torch:
        peers["pytorch"] = Torch(args.threads, args.blocks, args.channels, args.seconds)
        if ours["params"] != peers["pytorch"].meta["params"]:
            raise SystemExit(f"compare-pytorch: the networks differ: {ours['params']} trained weights in taflab's, "
                             f"{peers['pytorch'].meta['params']} in PyTorch's")
    if args.ort_model:
        peers["onnxruntime"] = Served("ONNX Runtime", [args.node, args.ort_script, args.ort_modules, args.ort_model,
                                                        str(args.threads), str(args.seconds)])
    pids = [os.getpid(), go.pid] + [p.pid for p in peers.values() if hasattr(p, "pid")]
    got = {side: {} for side in ["taflab", *peers]}  # side -> figure -> every round's figure
    for r in range(args.rounds):
        for name in names:
            figs = {}
            for side, obj in [("taflab", go), *peers.items()]:
                with Others(pids) as others:
                    fig = obj.figure(name)
                if fig.get("unsupported"):
                    continue
                fig["other_load"] = round(others.percent, 1)
                figs[side] = fig
                got[side].setdefault(name, []).append(fig)
            print(f"  round {r + 1}/{args.rounds} {name}-{args.threads}t: " + ", ".join(
                f"{side} {f['per_second']:.1f}/s (other processes {f['other_load']:.0f}% of the cores)"
                for side, f in figs.items()), file=sys.stderr)

    def best(side, name):
        figs = got[side][name]
        fig = dict(max(figs, key=lambda f: f["per_second"]))
        fig["rounds"] = [round(f["per_second"], 1) for f in figs]
        fig["max_other_load"] = max(f["other_load"] for f in figs)
        return fig

    go.close()
    sides = [dict(ours, figures=[best("taflab", n) for n in names])]
    for side, obj in peers.items():
        if hasattr(obj, "close"):
            obj.close()
        sides.append(dict(obj.meta, figures=[best(side, n) for n in names if n in got[side]]))
    json.dump({"threads": args.threads, "rounds": args.rounds, "sides": sides}, sys.stdout, indent=2)
    print()


PEERS = [("pytorch", "PyTorch"), ("onnxruntime", "ONNX Runtime")]


def report(args):
    sides, about = {}, {}
    for path in args.files:
        with open(path) as f:
            run = json.load(f)
        for r in run["sides"]:
            about.setdefault(r["side"], []).append(r)
        suffix = "1t" if run["threads"] == 1 else "allt"
        for r in run["sides"]:
            for fig in r["figures"]:
                key = f"{fig['name']}-{suffix}"
                sides.setdefault(key, {})[r["side"]] = (fig, run["threads"])
    # with one core, -allt is -1t
    if args.cores == 1:
        for key in list(sides):
            sides[key[:-len("1t")] + "allt"] = sides[key]
    order = sorted(sides, key=lambda k: (not k.endswith("-1t"), k.rsplit("-", 1)[0].startswith("train"),
                                         int(k.rsplit("-", 1)[0].split("-b")[1])))
    peers = [(side, label) for side, label in PEERS if side in about]
    go = about.get("taflab", [{}])[0]
    header = (f"# network: {go.get('blocks')} blocks x {go.get('channels')} channels, {go.get('params')} trained weights; "
              f"taflab kernels {go.get('implementation')}, inference in {go.get('precision')}, "
              f"GOMAXPROCS {'/'.join(str(r.get('gomaxprocs')) for r in about.get('taflab', []))}")
    if "pytorch" in about:
        torch = about["pytorch"][0]
        header += (f"; PyTorch {torch.get('torch')} ({torch.get('params')} trained weights), OMP_NUM_THREADS "
                   f"{'/'.join(str(r.get('omp_num_threads')) for r in about['pytorch'])}")
    else:
        header += "; PyTorch not measured (not installed)"
    if "onnxruntime" in about:
        ort = about["onnxruntime"][0]
        header += (f"; ONNX Runtime {ort.get('onnxruntime')} (onnxruntime-node, CPU provider, graph optimization "
                   f"{ort.get('graph_optimization_level')}, intraOpNumThreads "
                   f"{'/'.join(str(r.get('intra_op_num_threads')) for r in about['onnxruntime'])})")
    rows = []
    for key in order:
        got = sides.get(key, {})
        if "taflab" not in got or not any(side in got for side, _ in peers):
            continue
        ours = got["taflab"][0]
        ratios, load = {}, ours.get("max_other_load") or 0
        for side, _ in peers:
            if side in got:
                ratios[side] = ours["per_second"] / got[side][0]["per_second"]
                load = max(load, got[side][0].get("max_other_load") or 0)
        faster = min(ratios.values())
        note = f" (disturbed: other processes took up to {load:.0f}% of the cores)" if load > 10 else ""
        print(f"{key} " + " ".join(f"ratio{'' if side == 'pytorch' else '-' + side}={r:.2f}" for side, r in ratios.items())
              + f" vs-faster={faster:.2f}{note}")
        rows.append((key, got, ratios, load))
    print()
    print(header)
    line = f"{'figure':<18}{'threads':>8}{'taflab/s':>11}"
    for side, _ in peers:
        line += f"{side[:8] + '/s':>12}"
    line += f"{'taflab ms':>11}"
    for side, _ in peers:
        line += f"{'ratio-' + side[:4]:>11}"
    print(line + f"{'others%':>9}{'cores':>7}  rounds taflab | peers")
    worst = 0.0
    for key, got, ratios, load in rows:
        ours, threads = got["taflab"]
        worst = max(worst, load)
        line = f"{key:<18}{threads:>8}{ours['per_second']:>11.1f}"
        for side, _ in peers:
            line += f"{got[side][0]['per_second']:>12.1f}" if side in got else f"{'-':>12}"
        line += f"{ours['median_ms']:>11.2f}"
        for side, _ in peers:
            line += f"{ratios[side]:>11.2f}" if side in ratios else f"{'-':>11}"
        cores = f"{ours['cores']:.2f}" if "cores" in ours else "-"
        line += f"{load:>9.0f}{cores:>7}  {ours.get('rounds', '')}" + (f" ({ours['how']})" if ours.get("how") else "")
        for side, _ in peers:
            if side in got:
                fig = got[side][0]
                line += f" | {side} {fig.get('rounds', '')}" + (f" ({fig['how']})" if fig.get("how") else "")
        print(line)
    print("per second: positions (infer) or samples (train), the batch over the median time of one call (ms),")
    print("best of the rounds; ratio: taflab / the peer; vs-faster: taflab / the faster peer; others%: the most")
    print("CPU other processes took while the figure was measured; cores: the cores taflab's process actually")
    print("used while its best round was timed (its CPU time over the wall time)")
    if worst > 10:
        print(f"WARNING: other processes took up to {worst:.0f}% of the cores during the run: the figures are disturbed "
              "(the -allt ones most, PyTorch's most of all); rerun on an idle machine")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("run")
    m.add_argument("--go", required=True, help="the built compare-pytorch-go")
    m.add_argument("--threads", type=int, required=True)
    m.add_argument("--rounds", type=int, default=2)
    m.add_argument("--seconds", type=float, default=2.0)
    m.add_argument("--only", default="")
    m.add_argument("--precision", default="auto", help="taflab's inference precision: auto, float32, bf16, int8")
    m.add_argument("--blocks", type=int, default=6)
    m.add_argument("--channels", type=int, default=64)
    m.add_argument("--no-torch", action="store_true", help="leave PyTorch out (not installed)")
    m.add_argument("--ort-model", default="", help="the exported ONNX model, to measure in ONNX Runtime too")
    m.add_argument("--ort-modules", default="", help="the node_modules folder holding onnxruntime-node")
    m.add_argument("--ort-script", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "compare-onnxruntime.mjs"))
    m.add_argument("--node", default="node")
    r = sub.add_parser("report")
    r.add_argument("--cores", type=int, default=os.cpu_count())
    r.add_argument("files", nargs="+")
    args = p.parse_args()
    if args.cmd == "run":
        run(args)
    else:
        report(args)


if __name__ == "__main__":
    main()
