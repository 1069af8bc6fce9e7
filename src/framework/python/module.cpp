// opsnn._C: the Python face of the framework's C++ core (include/opsnn/tensor.h, call.h).
// The tensor class, host <-> device copies through numpy arrays, and one generated binding per
// aclnn op (opsnn._C.aclnn.<Name>, tools/gen_framework.py); DLPack and the buffer protocol
// (interop.h). Errors: opsnn::Error becomes
// opsnn._C.Error (a RuntimeError carrying .code and the aclnn message), argument errors of the
// views ValueError / IndexError.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <optional>
#include <string>

#include "opsnn/log.h"
#include "opsnn/profiler.h"
#include "bindings_common.h"
#include "interop.h"

#include "framework_aclnn_bindings.h"

// numpy dtype <-> acl dtype. bfloat16 has no numpy dtype: it goes through float32 (to_numpy
// widens, from_numpy takes float32 data and casts on the device).
static aclDataType from_numpy_dtype(const py::dtype &dt) {
  const char k = dt.kind();
  const auto sz = dt.itemsize();
  if (k == 'f' && sz == 4) return ACL_FLOAT;
  if (k == 'f' && sz == 8) return ACL_DOUBLE;  // reached only by _C.from_numpy (opsnn.from_numpy narrows float64)
  if (k == 'f' && sz == 2) return ACL_FLOAT16;
  if (k == 'i' && sz == 1) return ACL_INT8;
  if (k == 'i' && sz == 4) return ACL_INT32;
  if (k == 'i' && sz == 8) return ACL_INT64;
  if (k == 'b') return ACL_BOOL;
  const std::string name = py::str(static_cast<const py::handle &>(dt));
  throw py::type_error("opsnn.from_numpy: unsupported numpy dtype " + name +
                       " (float32, float16, int8, int32, int64, bool; float64 data: convert it first)");
}

static py::dtype numpy_dtype(aclDataType d) {
  switch (d) {
    case ACL_FLOAT: case ACL_BF16: return py::dtype("float32");
    case ACL_FLOAT16: return py::dtype("float16");
    case ACL_DOUBLE: return py::dtype("float64");
    case ACL_INT8: return py::dtype("int8");
    case ACL_INT32: return py::dtype("int32");
    case ACL_INT64: return py::dtype("int64");
    case ACL_BOOL: return py::dtype("bool");
    default: throw py::type_error("opsnn: no numpy dtype for this tensor");
  }
}

static opsnn::Tensor tensor_from_numpy(py::array arr, int dtype) {
  arr = py::array::ensure(arr, py::array::c_style);
  if (!arr) throw py::type_error("opsnn.from_numpy: not an array");
  const aclDataType host = from_numpy_dtype(arr.dtype());
  opsnn::Shape shape(arr.shape(), arr.shape() + arr.ndim());
  opsnn::Tensor t = opsnn::Tensor::from_host(arr.data(), shape, host);
  if (dtype >= 0 && static_cast<aclDataType>(dtype) != host) return t.to(static_cast<aclDataType>(dtype));
  return t;
}

static py::array tensor_to_numpy(const opsnn::Tensor &t) {
  const opsnn::Tensor src = t.dtype() == ACL_BF16 ? t.to(ACL_FLOAT) : t;
  py::array out(numpy_dtype(src.dtype()), std::vector<py::ssize_t>(src.shape().begin(), src.shape().end()));
  src.to_host(out.mutable_data());
  return out;
}

// A shape as a tuple made directly (py::cast builds a list first; shapes are read on every call).
static py::tuple int_tuple(const opsnn::Shape &v) {
  py::tuple r(v.size());
  for (size_t i = 0; i < v.size(); ++i) r[i] = py::int_(v[i]);
  return r;
}

PYBIND11_MODULE(_C, m) {
  m.doc() = "OpsNN framework core (C++): tensors over aclrtMalloc storage and the aclnn call path";
  static py::exception<opsnn::Error> error(m, "Error", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const opsnn::Error &e) {
      py::object type = py::reinterpret_borrow<py::object>(error.ptr());
      py::object exc = type(py::str(e.what()));
      exc.attr("code") = e.code();
      PyErr_SetObject(error.ptr(), exc.ptr());
    } catch (const std::out_of_range &e) {
      PyErr_SetString(PyExc_IndexError, e.what());
    }
  });

  m.attr("FLOAT32") = static_cast<int>(ACL_FLOAT);
  m.attr("FLOAT16") = static_cast<int>(ACL_FLOAT16);
  m.attr("BFLOAT16") = static_cast<int>(ACL_BF16);
  m.attr("INT8") = static_cast<int>(ACL_INT8);
  m.attr("INT32") = static_cast<int>(ACL_INT32);
  m.attr("INT64") = static_cast<int>(ACL_INT64);
  m.attr("BOOL") = static_cast<int>(ACL_BOOL);

  py::class_<opsnn::Tensor>(m, "Tensor", py::buffer_protocol())
      .def_buffer(&tensor_buffer)
      .def("__dlpack__", [](const opsnn::Tensor &t, const py::object &) { return tensor_to_dlpack(t); },
           py::arg("stream") = py::none())
      .def("__dlpack_device__", [](const opsnn::Tensor &) { return py::make_tuple(1, 0); })  // kDLCPU, device 0
      .def_property_readonly("shape", [](const opsnn::Tensor &t) { return int_tuple(t.shape()); })
      // The autograd engine's per-edge test (one call instead of two shape tuples and two dtypes).
      .def("same_shape_and_dtype",
           [](const opsnn::Tensor &t, const opsnn::Tensor &o) { return t.dtype() == o.dtype() && t.shape() == o.shape(); })
      .def_property_readonly("strides", [](const opsnn::Tensor &t) { return py::tuple(py::cast(t.strides())); })
      .def_property_readonly("offset", &opsnn::Tensor::offset)
      .def_property_readonly("dtype", [](const opsnn::Tensor &t) { return static_cast<int>(t.dtype()); })
      .def_property_readonly("storage_nbytes", [](const opsnn::Tensor &t) { return t.storage()->bytes(); })
      .def_property_readonly("data_ptr", [](const opsnn::Tensor &t) {
        return reinterpret_cast<uintptr_t>(t.storage()->data()) + t.offset() * t.element_size();
      })
      .def("dim", &opsnn::Tensor::dim)
      .def("numel", &opsnn::Tensor::numel)
      .def("is_contiguous", &opsnn::Tensor::is_contiguous)
      .def("shares_storage", [](const opsnn::Tensor &a, const opsnn::Tensor &b) { return a.storage() == b.storage(); })
      .def("view", &opsnn::Tensor::view)
      .def("reshape", &opsnn::Tensor::reshape)
      .def("permute", &opsnn::Tensor::permute)
      .def("transpose", &opsnn::Tensor::transpose)
      .def("slice", &opsnn::Tensor::slice, py::arg("dim"), py::arg("start"), py::arg("stop"), py::arg("step") = 1)
      .def("select", &opsnn::Tensor::select)
      .def("expand", &opsnn::Tensor::expand)
      .def("unsqueeze", &opsnn::Tensor::unsqueeze)
      .def("squeeze", &opsnn::Tensor::squeeze)
      .def("contiguous", &opsnn::Tensor::contiguous)
      .def("clone", &opsnn::Tensor::clone)
      .def("to", [](const opsnn::Tensor &t, int d) { return t.to(static_cast<aclDataType>(d)); })
      .def("copy_", [](opsnn::Tensor &t, const opsnn::Tensor &s) { t.copy_(s); })
      .def("fill_", [](opsnn::Tensor &t, double v) { t.fill_(v); })
      .def("zero_", [](opsnn::Tensor &t) { t.zero_(); })
      .def("numpy", &tensor_to_numpy)
      .def("__repr__", &opsnn::Tensor::describe);

  m.def("empty", [](const opsnn::Shape &s, int d) { return opsnn::Tensor::empty(s, static_cast<aclDataType>(d)); });
  m.def("zeros", [](const opsnn::Shape &s, int d) { return opsnn::Tensor::zeros(s, static_cast<aclDataType>(d)); });
  m.def("full", [](const opsnn::Shape &s, double v, int d) { return opsnn::Tensor::full(s, v, static_cast<aclDataType>(d)); });
  m.def("from_numpy", &tensor_from_numpy, py::arg("array"), py::arg("dtype") = -1);
  m.def("from_dlpack", &tensor_from_dlpack, py::arg("obj"));
  m.def("synchronize", &opsnn::synchronize);
  m.def("call_stats", []() {
    const opsnn::CallStats s = opsnn::call_stats();
    py::dict d;
    d["calls"] = s.calls;
    d["workspace_bytes"] = s.workspace_bytes;
    d["max_workspace"] = s.max_workspace;
    d["cache_hits"] = s.cache_hits;
    d["cache_misses"] = s.cache_misses;
    d["cache_uncached"] = s.cache_uncached;
    d["cache_entries"] = s.cache_entries;
    d["arena_bytes"] = s.arena_bytes;
    d["arena_grows"] = s.arena_grows;
    return d;
  });
  m.def("reset_call_stats", &opsnn::reset_call_stats);
  m.def("memory_stats", []() {
    const opsnn::MemoryStats s = opsnn::memory_stats();
    py::dict d;
    d["allocated_bytes"] = s.allocated_bytes;
    d["peak_allocated_bytes"] = s.peak_allocated_bytes;
    d["allocations"] = s.allocations;
    d["frees"] = s.frees;
    d["device_in_use"] = s.device_in_use;
    d["device_total"] = s.device_total;
    return d;
  });
  m.def("reset_peak_memory_stats", &opsnn::reset_peak_memory_stats);
  register_graph_bindings(m);
  m.def("set_executor_cache", &opsnn::set_executor_cache);
  m.def("executor_cache_enabled", &opsnn::executor_cache_enabled);
  m.def("clear_executor_cache", &opsnn::clear_executor_cache);
  m.def("dtype_name", [](int d) { return std::string(opsnn::dtype_name(static_cast<aclDataType>(d))); });
  // The profiler and the log level (include/opsnn/profiler.h, include/opsnn/log.h; opsnn.profiler).
  m.def("profiler_start", []() { return opsnnProfilerStart(); });
  m.def("profiler_stop", [](int session) {
    char *events = opsnnProfilerStop(session);
    std::string out = events != nullptr ? events : "[]";
    opsnnProfilerFree(events);
    return out;
  });
  m.def("profiler_enabled", []() { return opsnnProfilerEnabled() != 0; });
  m.def("set_log_level", [](int level) { return opsnnSetLogLevel(level); });
  m.def("get_log_level", []() { return opsnnGetLogLevel(); });

  py::module_ ops = m.def_submodule("aclnn", "one binding per aclnn op (generated from the op tables)");
  register_aclnn_bindings(ops);
}
