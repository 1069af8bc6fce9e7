# The CNN proof (examples/train_cnn.py): the same model trained in PyTorch 1.13 from the same initial
# weights and batches gives the same per-step losses (precision.md's float32 tolerance), and a
# torch state_dict of the CNN loads into opsnn and gives the same eval outputs. torch is the natural
# reference here (a whole training run); without it these tests skip, saying why.
import numpy as np
import pytest

import opsnn
import train_cnn  # examples/train_cnn.py
from conftest import assert_close

torch = pytest.importorskip("torch", reason="PyTorch is not installed for this interpreter: the CNN comparison "
                                             "with PyTorch 1.13 is skipped")


def torch_model(c1=8, c2=16):
    tn = torch.nn
    return tn.Sequential(
        tn.Conv2d(1, c1, 3, padding=1, bias=False), tn.BatchNorm2d(c1), tn.ReLU(), tn.MaxPool2d(2),
        tn.Conv2d(c1, c2, 3, padding=1, bias=False), tn.BatchNorm2d(c2), tn.ReLU(), tn.MaxPool2d(2),
        tn.Flatten(), tn.Linear(c2 * (train_cnn.SIZE // 4) ** 2, len(train_cnn.CLASSES)))


def torch_train(init, steps, lr, dtype):
    tm = torch_model().to(dtype)
    tm.load_state_dict({k: torch.from_numpy(np.array(v)) for k, v in init.items()})
    opt = torch.optim.Adam(tm.parameters(), lr=lr)
    loss_fn = torch.nn.CrossEntropyLoss()
    losses = []
    tm.train()
    for xb, yb in train_cnn.batches(steps):
        opt.zero_grad()
        loss = loss_fn(tm(torch.from_numpy(xb).to(dtype)), torch.from_numpy(yb))
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return np.array(losses), tm.state_dict()


def test_cnn_training_matches_pytorch():
    """100 Adam steps of the CNN against the same training in PyTorch 1.13 in float64 (the
    reference: per-step losses and final weights to the float32 standard), and the first 60 against
    PyTorch in float32. Two float32 trainings drift apart chaotically once the accumulated rounding
    flips a max-pool or ReLU decision (measured here: PyTorch float32 vs float64 leaves the float32
    tolerance after ~80 steps; opsnn vs float64 stays at MERE ~1e-7 over 100)."""
    torch.set_num_threads(1)
    steps, lr = 100, 3e-3
    init, losses, model = train_cnn.train(steps=steps, lr=lr)
    losses = np.array(losses)
    want64, sd64 = torch_train(init, steps, lr, torch.float64)
    want32, _ = torch_train(init, 60, lr, torch.float32)
    assert losses[-1] < 0.3 * losses[0], f"the CNN did not learn: {losses[0]} -> {losses[-1]}"
    for name, want in (("float64", want64), ("float32", want32)):
        err = np.abs(losses[:len(want)] - want) / np.abs(want)
        print(f"losses vs PyTorch {name} over {len(want)} steps: MERE {err.mean():.2e}, MARE {err.max():.2e}")
    assert_close(losses, want64, "float32", "per-step losses vs PyTorch float64")
    assert_close(losses[:60], want32, "float32", "per-step losses vs PyTorch float32 (60 steps)")
    for k, v in model.state_dict().items():  # the trained weights and running statistics
        if k.endswith("num_batches_tracked"):
            assert int(v) == int(sd64[k]) == steps
            continue
        assert_close(v, sd64[k].numpy(), "float32", f"trained {k} vs PyTorch float64", abs_floor=1e-6)


def test_torch_cnn_state_dict_loads_and_matches_eval():
    torch.manual_seed(0)
    tm = torch_model()
    with torch.no_grad():  # non-trivial running statistics and affine parameters
        for m in tm.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.uniform_(-0.5, 0.5)
                m.running_var.uniform_(0.5, 2.0)
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.2, 0.2)
                m.num_batches_tracked.fill_(7)
    tm.eval()
    model = train_cnn.make_model(seed=5)
    model.load_state_dict(tm.state_dict())  # torch tensors, PyTorch's names
    model.eval()
    x, _ = train_cnn.make_data(64, seed=9)
    got = model(opsnn.from_numpy(x)).detach().numpy()
    with torch.no_grad():
        want = tm(torch.from_numpy(x)).numpy()
    assert_close(got, want, "float32", "eval logits", abs_floor=1e-5)
    assert int(model.state_dict()["1.num_batches_tracked"]) == 7
    assert list(model.state_dict()) == list(tm.state_dict())
