// _dpusim.formats: the numeric-formats codec (p4/formats) for Python.
//
// Formats and operations are taken by name, buffers as any C-contiguous bytes-like object,
// and results come back as bytes. Every refusal is a ValueError that names the argument, the
// value and the rule (a non-bytes-like buffer is a TypeError, as Python's own functions do).
#include <string>

#include "formats/formats.h"
#include "module_registry.h"

namespace py = pybind11;
namespace fmt = dpusim::formats;

namespace {

std::string all_format_names() {
  std::string names;
  for (const fmt::FormatSpec& s : fmt::kFormatSpecs)
    names += std::string(names.empty() ? "" : ", ") + s.name;
  return names;
}

std::string all_op_names() {
  std::string names;
  for (unsigned i = 0; i < fmt::kOpCount; ++i) {
    names += std::string(i ? ", " : "") + fmt::op_name(static_cast<fmt::Op>(i));
  }
  return names;
}

std::string repr_of(py::handle value) { return py::repr(value).cast<std::string>(); }

fmt::Format parse_format(const char* arg, py::handle value) {
  if (py::isinstance<py::str>(value)) {
    if (auto f = fmt::format_from_name(value.cast<std::string>())) return *f;
  }
  throw py::value_error(std::string(arg) + ": " + repr_of(value) +
                        " is not a format; the formats are " + all_format_names());
}

fmt::Op parse_op(const char* arg, py::handle value) {
  if (py::isinstance<py::str>(value)) {
    if (auto op = fmt::op_from_name(value.cast<std::string>())) return *op;
  }
  throw py::value_error(std::string(arg) + ": " + repr_of(value) +
                        " is not an operation; the operations are " + all_op_names());
}

// A read-only view of a bytes-like argument, released when done.
class ByteView {
 public:
  ByteView(const char* arg, py::handle obj) {
    if (PyObject_GetBuffer(obj.ptr(), &view_, PyBUF_C_CONTIGUOUS) != 0) {
      PyErr_Clear();
      throw py::type_error(
          std::string(arg) + ": " +
          py::str(py::type::of(obj).attr("__name__")).cast<std::string>() +
          " is not a contiguous bytes-like object (bytes, bytearray, memoryview, array)");
    }
  }
  ~ByteView() { PyBuffer_Release(&view_); }
  ByteView(const ByteView&) = delete;
  ByteView& operator=(const ByteView&) = delete;
  const uint8_t* data() const { return static_cast<const uint8_t*>(view_.buf); }
  size_t size() const { return static_cast<size_t>(view_.len); }

 private:
  Py_buffer view_{};
};

// The element count of a buffer argument, or a ValueError saying why it has none.
size_t elements_of(const char* arg, fmt::Format f, size_t bytes) {
  size_t count = 0;
  const fmt::Status s = fmt::element_count(f, bytes, &count);
  if (s == fmt::Status::ok) return count;
  if (s == fmt::Status::partial_element) {
    throw py::value_error(std::string(arg) + ": " + std::to_string(bytes) +
                          " bytes is not a whole number of " + fmt::format_name(f) + " elements (" +
                          std::to_string(fmt::spec(f).bits / 8) + " bytes each)");
  }
  throw py::value_error(std::string(arg) + ": " + std::to_string(bytes) +
                        " bytes: " + fmt::status_message(s));
}

// A bytes object of `size` bytes for `fill` to write, without an intermediate copy.
template <class Fill>
py::bytes make_bytes(size_t size, Fill fill) {
  PyObject* raw = PyBytes_FromStringAndSize(nullptr, static_cast<Py_ssize_t>(size));
  if (raw == nullptr) throw py::error_already_set();
  py::bytes out = py::reinterpret_steal<py::bytes>(raw);
  const fmt::Status s = fill(reinterpret_cast<uint8_t*>(PyBytes_AS_STRING(raw)));
  // The arguments were checked above; a failure here is a codec rule this binding missed.
  if (s != fmt::Status::ok) throw py::value_error(fmt::status_message(s));
  return out;
}

py::bytes convert(py::handle src_arg, py::handle dst_arg, py::handle data_arg) {
  const fmt::Format src = parse_format("src", src_arg);
  const fmt::Format dst = parse_format("dst", dst_arg);
  const ByteView data("data", data_arg);
  const size_t count = elements_of("data", src, data.size());
  size_t out_bytes = 0;
  if (fmt::byte_length(dst, count, &out_bytes) == fmt::Status::odd_fp4_count) {
    throw py::value_error(
        "data: " + std::to_string(count) + " " + fmt::format_name(src) +
        " elements cannot be fp4_e2m1, which packs two elements a byte: the element count "
        "must be even");
  }
  return make_bytes(out_bytes, [&](uint8_t* out) {
    return fmt::convert(src, dst, data.data(), data.size(), out, out_bytes);
  });
}

py::bytes apply(py::handle op_arg, py::handle fmt_arg, py::handle a_arg, py::handle b_arg) {
  const fmt::Op op = parse_op("op", op_arg);
  const fmt::Format f = parse_format("fmt", fmt_arg);
  const ByteView a("a", a_arg);
  const ByteView b("b", b_arg);
  elements_of("a", f, a.size());
  elements_of("b", f, b.size());
  if (a.size() != b.size()) {
    throw py::value_error("b: " + std::to_string(b.size()) + " bytes, but a is " +
                          std::to_string(a.size()) +
                          " bytes: the operands must be of equal length");
  }
  return make_bytes(a.size(), [&](uint8_t* out) {
    return fmt::apply(op, f, a.data(), a.size(), b.data(), b.size(), out, a.size());
  });
}

}  // namespace

DPUSIM_PYBIND(formats) {
  m.doc() =
      "Numeric formats of the P4 engine: conversion and elementwise arithmetic (docs/formats.md)";
  py::tuple formats(fmt::kFormatCount);
  for (unsigned i = 0; i < fmt::kFormatCount; ++i) formats[i] = fmt::kFormatSpecs[i].name;
  m.attr("FORMATS") = formats;
  py::tuple ops(fmt::kOpCount);
  for (unsigned i = 0; i < fmt::kOpCount; ++i) ops[i] = fmt::op_name(static_cast<fmt::Op>(i));
  m.attr("OPS") = ops;
  m.def("convert", &convert, py::arg("src"), py::arg("dst"), py::arg("data"),
        "Convert the elements in `data` from format `src` to format `dst`; returns bytes.");
  m.def("apply", &apply, py::arg("op"), py::arg("fmt"), py::arg("a"), py::arg("b"),
        "Elementwise `a op b` in format `fmt`; returns bytes.");
}
