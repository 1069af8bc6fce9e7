// opsnn._C.Graph: the C++ core's graph capture (include/opsnn/graph.h) for opsnn.graph (_graph.py).
#include <pybind11/functional.h>

#include "bindings_common.h"
#include "opsnn/graph.h"

void register_graph_bindings(py::module_ &m) {
  py::class_<opsnn::Graph>(m, "Graph")
      .def(py::init<>())
      .def("capture", &opsnn::Graph::capture, py::arg("step"))
      .def("replay", &opsnn::Graph::replay)
      .def("reset", &opsnn::Graph::reset)
      .def_property_readonly("captured", &opsnn::Graph::captured)
      .def("memory_report", [](const opsnn::Graph &g) {
        const opsnn::GraphMemoryReport &r = g.memory_report();
        py::dict d;
        d["planned_bytes"] = r.planned_bytes;
        d["unplanned_bytes"] = r.unplanned_bytes;
        d["live_peak_bytes"] = r.live_peak_bytes;
        d["kept_bytes"] = r.kept_bytes;
        d["workspace_bytes"] = r.workspace_bytes;
        d["largest_workspace_bytes"] = r.largest_workspace_bytes;
        d["blocks"] = r.blocks;
        d["workspace_blocks"] = r.workspace_blocks;
        return d;
      });
  m.def("graph_capturing", &opsnn::graph_capturing);
}
