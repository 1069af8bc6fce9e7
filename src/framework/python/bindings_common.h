// Shared by opsnn._C's units (module.cpp and the generated framework_aclnn_bindings_<k>.cpp).
#pragma once

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <vector>

#include "opsnn/call.h"
#include "opsnn/tensor.h"

namespace py = pybind11;

// A Python number (bool, int, float, numpy scalar) or None as an aclScalar argument.
inline std::optional<opsnn::Scalar> to_scalar(const py::object &o, const char *name) {
  if (o.is_none()) return std::nullopt;
  if (py::isinstance<py::bool_>(o)) return opsnn::Scalar::of(o.cast<bool>());
  if (py::isinstance<py::int_>(o)) return opsnn::Scalar::of(o.cast<int64_t>());
  if (py::isinstance<py::float_>(o)) return opsnn::Scalar::of(o.cast<double>());
  py::object f = py::module_::import("builtins").attr("float");
  try {
    return opsnn::Scalar::of(f(o).cast<double>());
  } catch (const py::error_already_set &) {
    throw py::type_error(std::string("opsnn: argument '") + name + "' must be a number or None");
  }
}

// opsnn._C.Graph and graph_capturing (graph_bindings.cpp).
void register_graph_bindings(py::module_ &m);
