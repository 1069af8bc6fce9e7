"""Reverse-mode autograd: each result of a differentiable call records a Node (its inputs and a
backward function); Tensor.backward() walks the graph in reverse topological order, summing the
gradients of tensors used more than once and reducing broadcast gradients to the input's shape.
The backward functions are aclnn backward ops where they exist (functional.py) and compositions
of forward ops otherwise. gradcheck compares them with central finite differences."""
import numpy as np

from ._tensor import Tensor, _GradMode, no_grad


class Node:
    """One recorded call: `name` (printed as grad_fn), the input tensors, backward(grad) -> one
    gradient (or None) per input."""
    __slots__ = ("name", "inputs", "fn")

    def __init__(self, name, inputs, fn):
        self.name, self.inputs, self.fn = name, inputs, fn

    def __repr__(self):
        return f"<{self.name}>"

    def release(self):
        """Drop what the backward function saved (PyTorch's retain_graph=False): the activations
        die once backward has used them."""
        self.inputs, self.fn = (), _freed_backward


def _freed_backward(grad):
    raise RuntimeError("Trying to backward through the graph a second time (or directly access saved tensors after "
                       "they have already been freed): specify retain_graph=True when calling backward the first time")


def record(out, inputs, name, fn):
    """Attach a Node to `out` (a Tensor or a tuple of them: fn then gets the first's gradient)
    when grad mode is on and an input requires grad."""
    if not _GradMode.enabled:
        return out
    ins, needed = [], False
    for t in inputs:
        if isinstance(t, Tensor):
            ins.append(t)
            needed = needed or t.requires_grad
        else:
            ins.append(None)
    if not needed:
        return out
    target = out[0] if isinstance(out, tuple) else out
    target.requires_grad = True
    target.grad_fn = Node(name, ins, fn)
    return out


def _topo(root):
    order, seen, stack = [], set(), [(root, False)]
    while stack:
        t, done = stack.pop()
        if done:
            order.append(t)
            continue
        if id(t) in seen:
            continue
        seen.add(id(t))
        stack.append((t, True))
        if t.grad_fn is not None:
            for i in t.grad_fn.inputs:
                if i is not None and i.requires_grad and id(i) not in seen:
                    stack.append((i, False))
    return order


def backward(root, gradient=None, retain_graph=None):
    from . import functional as F
    if not root.requires_grad:
        raise RuntimeError("element 0 of tensors does not require grad and does not have a grad_fn")
    if gradient is None:
        if root.numel() != 1:
            raise RuntimeError("grad can be implicitly created only for scalar outputs")
        gradient = F.ones_like(root)
    elif not isinstance(gradient, Tensor):
        gradient = F.tensor(gradient, dtype=root.dtype)
    if tuple(gradient.shape) != tuple(root.shape):
        raise RuntimeError(f"gradient has shape {tuple(gradient.shape)}, the tensor {tuple(root.shape)}")
    with no_grad():
        order = _topo(root)
        grads = {id(root): gradient}
        for t in reversed(order):
            g = grads.pop(id(t), None)
            if g is None:
                continue
            node = t.grad_fn
            if node is None:
                if t.requires_grad:
                    g = g if g._t.dtype == t._t.dtype else g.to(t.dtype)
                    t.grad = Tensor(g._t) if t.grad is None else F.add(t.grad, g)  # (a detached view)
                continue
            in_grads = node.fn(g)
            if not isinstance(in_grads, (tuple, list)):
                in_grads = (in_grads,)
            inputs = node.inputs
            if not retain_graph:
                node.release()
            for inp, ig in zip(inputs, in_grads):
                if inp is None or ig is None or not inp.requires_grad:
                    continue
                if not ig._t.same_shape_and_dtype(inp._t):  # (one call: the common case)
                    if ig._t.shape != inp._t.shape:
                        ig = F.sum_to(ig, inp.shape)
                    if ig._t.dtype != inp._t.dtype:
                        ig = ig.to(inp.dtype)
                prev = grads.get(id(inp))
                grads[id(inp)] = ig if prev is None else F.add(prev, ig)


def grad(output, inputs, grad_output=None, retain_graph=None):
    """The gradients of `output` with respect to `inputs` (their .grad is left unchanged)."""
    saved = [i.grad for i in inputs]
    for i in inputs:
        i.grad = None
    try:
        backward(output, grad_output, retain_graph)
        return [i.grad for i in inputs]
    finally:
        for i, s in zip(inputs, saved):
            i.grad = s


def gradcheck(fn, inputs, eps=1e-3, atol=1e-2, rtol=1e-2, seed=0, raise_exception=True):
    """Check the analytical gradients of fn(*inputs) against central finite differences of
    L = sum(fn(*inputs) * V) for a random V, element by element of every input that requires
    grad. Inputs are float32 tensors (opsnn has no float64): eps, atol and rtol are chosen for
    float32. Returns True, or raises (or returns False) naming the input and element."""
    from . import functional as F
    inputs = list(inputs)
    rng = np.random.default_rng(seed)
    with no_grad():
        out0 = fn(*inputs)
    v = rng.standard_normal(out0.shape) if out0.dim() else np.float64(rng.standard_normal())
    V = F.tensor(np.asarray(v, dtype=np.float32))

    def loss_value(args):
        with no_grad():
            return float(np.sum(fn(*args).numpy().astype(np.float64) * np.asarray(v, dtype=np.float32)))

    targets = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    analytic = grad(F.sum(F.mul(fn(*inputs), V)), [inputs[i] for i in targets])
    for k, i in enumerate(targets):
        x = inputs[i]
        base = x.detach().numpy().astype(np.float32)
        num = np.zeros(base.shape, dtype=np.float64)
        for j in np.ndindex(*base.shape) if base.ndim else [()]:
            vals = []
            for sgn in (1, -1):
                b = base.copy()
                b[j] = b[j] + sgn * eps
                args = list(inputs)
                args[i] = F.tensor(b, dtype=x.dtype)
                vals.append(loss_value(args))
            num[j] = (vals[0] - vals[1]) / (2 * eps)
        a = analytic[k]
        a = np.zeros(base.shape) if a is None else a.numpy().astype(np.float64)
        bad = np.abs(a - num) > atol + rtol * np.abs(num)
        if np.any(bad):
            j = tuple(int(z) for z in np.argwhere(bad)[0])
            msg = (f"gradcheck: input {i}, element {j}: analytical {a[j]!r} vs numerical {num[j]!r} "
                   f"(atol {atol}, rtol {rtol})")
            if raise_exception:
                raise AssertionError(msg)
            return False
    return True
