"""ptoas from Python: compile a PTO kernel (.pto) and run it on numpy arrays.

    import numpy as np, ptoas
    k = ptoas.compile("vadd.pto", target="avx2")
    z = k(x=np.arange(1000, dtype=np.float32), y=np.ones(1000, np.float32), n=1000, blocks=4)
    print(k.asm())

A pointer parameter given an array is read and written in place; one not
given is an output, allocated zero-filled and shaped like the view the kernel
builds on it, and returned (one output: the array; several: a tuple in
parameter order). Scalars are Python or numpy numbers and bools. bf16 arrays
travel as uint16 bit patterns, as in .npy files.

Errors raise ptoas.Error (ProgramError, ArgumentError, RunError,
UnavailableError) whose message is the located one: "k.pto:3:7: error: ...",
the line and a caret.

Pure Python over the C API of libptort.so (ctypes); $PTORT_LIBRARY names
the library to load instead of the one installed beside this module.
"""
import ctypes
import os

import numpy as np

__all__ = ["compile", "compile_source", "Kernel", "Error", "ProgramError", "ArgumentError", "RunError",
           "UnavailableError", "__version__"]


class Error(Exception):
    """A failure of the runtime; str() is its message (located where it can be)."""

    status = 0


class ProgramError(Error):
    """The program, or the target's refusal of it."""

    status = 1


class ArgumentError(Error):
    """Arguments that do not fit the kernel (names, kinds, dtypes, sizes)."""

    status = 2


class RunError(Error):
    """The kernel failed while running."""

    status = 3


class UnavailableError(Error):
    """The target cannot run on this machine (a tool it needs is missing)."""

    status = 4


_ERRORS = {1: ProgramError, 2: ArgumentError, 3: RunError, 4: UnavailableError}


class _Param(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("kind", ctypes.c_int), ("dtype", ctypes.c_char_p),
                ("npy_descr", ctypes.c_char_p), ("type", ctypes.c_char_p)]


def _load():
    env = os.environ.get("PTORT_LIBRARY")
    if env:
        return ctypes.CDLL(env)
    # Installed: <prefix>/lib/python3/dist-packages/ptoas/ -> <prefix>/lib.
    lib_dir = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
    tried = []
    for name in ("libptort.so.0", "libptort.so"):
        path = os.path.join(lib_dir, name)
        if os.path.exists(path):
            return ctypes.CDLL(path)
        tried.append(path)
    raise ImportError("ptoas: libptort.so not found (looked for %s; $PTORT_LIBRARY names it)" % ", ".join(tried))


_lib = _load()
_P = ctypes.c_void_p
_S = ctypes.c_char_p
_PS = ctypes.POINTER(ctypes.c_void_p)  # char** (kept as a void* to free it)
for _name, _res, _args in [
    ("ptort_version", _S, []),
    ("ptort_free", None, [_P]),
    ("ptort_compile", ctypes.c_int, [_S, _S, ctypes.c_size_t, _S, _S, ctypes.POINTER(_P), _PS]),
    ("ptort_compile_file", ctypes.c_int, [_S, _S, _S, ctypes.POINTER(_P), _PS]),
    ("ptort_kernel_free", None, [_P]),
    ("ptort_kernel_target", _S, [_P]),
    ("ptort_kernel_function", _S, [_P]),
    ("ptort_kernel_notes", _S, [_P]),
    ("ptort_kernel_ir", _S, [_P]),
    ("ptort_kernel_asm", _S, [_P, _PS]),
    ("ptort_kernel_param_count", ctypes.c_int, [_P]),
    ("ptort_kernel_param", ctypes.c_int, [_P, ctypes.c_int, ctypes.POINTER(_Param)]),
    ("ptort_args_new", _P, []),
    ("ptort_args_free", None, [_P]),
    ("ptort_args_scalar", ctypes.c_int, [_P, _S, _S]),
    ("ptort_args_buffer", ctypes.c_int, [_P, _S, _S, _P, ctypes.c_size_t]),
    ("ptort_args_output", ctypes.c_int, [_P, _S]),
    ("ptort_args_get_output", ctypes.c_int,
     [_P, _S, ctypes.POINTER(_P), ctypes.POINTER(ctypes.c_size_t), ctypes.POINTER(_S),
      ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.POINTER(ctypes.c_int64))]),
    ("ptort_check", ctypes.c_int, [_P, _P, ctypes.c_int64, _PS]),
    ("ptort_launch", ctypes.c_int, [_P, _P, ctypes.c_int64, _PS]),
]:
    _fn = getattr(_lib, _name)
    _fn.restype = _res
    _fn.argtypes = _args

__version__ = _lib.ptort_version().decode()


def _take_error(err):
    """The message of a char* the library allocated, released."""
    if not err:
        return ""
    msg = ctypes.cast(err, ctypes.c_char_p).value.decode("utf-8", "replace")
    _lib.ptort_free(err)
    return msg.rstrip("\n")


def _check(status, err=None, what=""):
    msg = _take_error(err) if err is not None else ""
    if status == 0:
        return
    cls = _ERRORS.get(status)
    if cls is None:
        cls = ValueError if status == 5 else Error  # 5: a bad call (ours or the caller's); 6: internal
    raise cls(msg or "%s failed (status %d)" % (what, status))


def _options(opt, function, arch, gpu_arch, sve_vl, timeout, threads):
    words = ["opt=%d" % opt]
    for key, val in (("function", function), ("arch", arch), ("gpu-arch", gpu_arch), ("sve-vl", sve_vl),
                     ("timeout", timeout), ("threads", threads)):
        if val is not None:
            val = str(val)
            if not val or any(c.isspace() for c in val):
                raise ValueError("ptoas: %s=%r: expected a word" % (key, val))
            words.append("%s=%s" % (key, val))
    return " ".join(words).encode()


def compile(path, target="interp", opt=2, function=None, arch=None, gpu_arch=None, sve_vl=None, timeout=None,
            threads=None):
    """Compiles the .pto file at `path` for `target` ("interp", "host", or a target of
    `ptoas --print-targets` that ptorun runs) and returns a Kernel.

    opt: 0-2 (default 2); function: which one to run (default: the pto.entry one);
    arch: "a3" or "a5" (ptoas --pto-arch); gpu_arch: "sm_90", "gfx942", ...;
    sve_vl: bits under qemu; timeout: seconds for the interpreters and emulators
    (default 600, 0: none); threads: worker threads per launch."""
    k = _P()
    err = ctypes.c_void_p()
    st = _lib.ptort_compile_file(os.fsencode(path), target.encode(),
                                 _options(opt, function, arch, gpu_arch, sve_vl, timeout, threads), ctypes.byref(k),
                                 ctypes.byref(err))
    _check(st, err, "compile")
    return Kernel(k)


def compile_source(text, target="interp", name="<string>", opt=2, function=None, arch=None, gpu_arch=None,
                   sve_vl=None, timeout=None, threads=None):
    """Compiles .pto text (`name` names it in messages); as compile()."""
    data = text.encode() if isinstance(text, str) else bytes(text)
    k = _P()
    err = ctypes.c_void_p()
    st = _lib.ptort_compile(name.encode(), data, len(data), target.encode(),
                            _options(opt, function, arch, gpu_arch, sve_vl, timeout, threads), ctypes.byref(k),
                            ctypes.byref(err))
    _check(st, err, "compile")
    return Kernel(k)


def _scalar_text(name, v):
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        return repr(float(v))
    raise TypeError("ptoas: argument %s: expected a number or a bool for a scalar parameter, got %s"
                    % (name, type(v).__name__))


class Param:
    """A kernel parameter: name, kind ("pointer", "scalar", "other"), dtype ("f32"),
    npy (numpy's descriptor, "" when numpy has none), type (as the kernel spells it)."""

    def __init__(self, p):
        self.name = p.name.decode()
        self.kind = ("pointer", "scalar", "other")[p.kind]
        self.dtype = p.dtype.decode()
        self.npy = p.npy_descr.decode()
        self.type = p.type.decode()

    def __repr__(self):
        return "Param(%s: %s)" % (self.name, self.type)


class Kernel:
    """A compiled kernel; call it with its arguments by name (and blocks=N)."""

    def __init__(self, handle):
        self._k = handle
        self.target = _lib.ptort_kernel_target(handle).decode()
        self.function = _lib.ptort_kernel_function(handle).decode()
        self.notes = _lib.ptort_kernel_notes(handle).decode()
        params = []
        for i in range(_lib.ptort_kernel_param_count(handle)):
            p = _Param()
            _check(_lib.ptort_kernel_param(handle, i, ctypes.byref(p)), None, "param")
            params.append(Param(p))
        self.params = params

    def __del__(self):
        k, self._k = getattr(self, "_k", None), None
        if k and _lib is not None:  # at interpreter exit the module's globals may be gone
            _lib.ptort_kernel_free(k)

    def ir(self):
        """The optimized IR, as `ptoas --emit=ir` prints it."""
        return _lib.ptort_kernel_ir(self._k).decode()

    def asm(self):
        """The target's code as text: assembly (x86, sve, amdgpu), PTX, or CCE C++."""
        err = ctypes.c_void_p()
        text = _lib.ptort_kernel_asm(self._k, ctypes.byref(err))
        if text is None:
            raise Error(_take_error(err) or "no code")
        _take_error(err)
        return text.decode()

    def __call__(self, blocks=1, **args):
        return self.run(args, blocks)

    def run(self, args, blocks=1):
        """Runs with `args` (a dict by parameter name: for a kernel with a parameter
        named blocks); returns the outputs as __call__ does."""
        a = _lib.ptort_args_new()
        if not a:
            raise MemoryError("ptoas: ptort_args_new")
        try:
            return self._run(a, dict(args), int(blocks))
        finally:
            _lib.ptort_args_free(a)

    def _run(self, a, args, blocks):
        keep = []        # the arrays whose memory the launch uses
        copy_back = []   # (caller's array, contiguous copy): written back after the run
        outputs = []
        by_name = {p.name: p for p in self.params}
        for name, v in args.items():
            p = by_name.get(name)
            if p is not None and p.kind == "pointer":
                if not isinstance(v, np.ndarray):
                    raise TypeError("ptoas: argument %s is a pointer (%s): pass a numpy array, not %s"
                                    % (name, p.type, type(v).__name__))
                arr = v if v.flags.c_contiguous and v.flags.writeable else np.ascontiguousarray(v)
                if arr.dtype.byteorder == ">":
                    raise TypeError("ptoas: argument %s: a big-endian array; kernels take little-endian" % name)
                if arr is not v:
                    copy_back.append((v, arr))
                keep.append(arr)
                st = _lib.ptort_args_buffer(a, name.encode(), arr.dtype.str.encode(),
                                            arr.ctypes.data_as(ctypes.c_void_p), arr.nbytes)
            else:
                # A scalar, or a name the kernel does not have (the launch says so).
                st = _lib.ptort_args_scalar(a, name.encode(), _scalar_text(name, v).encode())
            _check(st, None, "argument " + name)
        for p in self.params:
            if p.kind == "pointer" and p.name not in args:
                _check(_lib.ptort_args_output(a, p.name.encode()), None, "output " + p.name)
                outputs.append(p)
        err = ctypes.c_void_p()
        _check(_lib.ptort_launch(self._k, a, blocks, ctypes.byref(err)), err, "launch")
        for v, arr in copy_back:
            if v.flags.writeable:
                np.copyto(v, arr)
        result = []
        for p in outputs:
            data = _P()
            size = ctypes.c_size_t()
            ndim = ctypes.c_int()
            shape = ctypes.POINTER(ctypes.c_int64)()
            _check(_lib.ptort_args_get_output(a, p.name.encode(), ctypes.byref(data), ctypes.byref(size), None,
                                              ctypes.byref(ndim), ctypes.byref(shape)), None, "output " + p.name)
            dims = tuple(shape[i] for i in range(ndim.value))
            raw = ctypes.string_at(data, size.value) if size.value else b""
            result.append(np.frombuffer(raw, dtype=np.dtype(p.npy)).reshape(dims).copy())
        if not result:
            return None
        return result[0] if len(result) == 1 else tuple(result)
