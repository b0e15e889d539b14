# dpusim_rtl_block(TARGET <lib> TOP <module> FILELIST <file.f> [PARAMS N=V ...] [TRACE])
#
# Verilates one RTL block into a SystemC model (verilator --sc) and builds it as the static
# library <lib>_model, with the block's sources listed, in compile order, in FILELIST (paths
# relative to the list, `//` comments allowed, the top module's file last), and registers its
# lint test (ctest label rtl): verilator --lint-only -Wall --top-module TOP over the same files
# and parameters, which must be clean. TRACE builds the model with Verilator's VCD tracing
# (--trace: V<top>::trace, VerilatedVcdSc), which costs nothing at run time until a trace is
# opened.
function(dpusim_rtl_block)
  cmake_parse_arguments(B "TRACE" "TARGET;TOP;FILELIST" "PARAMS" ${ARGN})
  get_filename_component(list_dir ${B_FILELIST} DIRECTORY)
  file(STRINGS ${B_FILELIST} lines)
  set(files)
  foreach(line ${lines})
    string(STRIP "${line}" line)
    if(line STREQUAL "" OR line MATCHES "^//")
      continue()
    endif()
    list(APPEND files ${list_dir}/${line})
  endforeach()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${B_FILELIST})
  set(params)
  foreach(p ${B_PARAMS})
    list(APPEND params -G${p})
  endforeach()

  add_library(${B_TARGET}_model STATIC)
  # Single-threaded model (deterministic, no OS threads); -O3 and fast X assignment as
  # Verilator's manual recommends for speed. Code that runs once (construction, the runtime's
  # setup) is compiled at -O1, which saves build time on a 2-core CI machine and no run time.
  set(trace)
  set(vm_trace 0)
  if(B_TRACE)
    set(trace TRACE)
    set(vm_trace 1)
  endif()
  verilate(${B_TARGET}_model SYSTEMC ${trace} PREFIX V${B_TOP} TOP_MODULE ${B_TOP} SOURCES ${files}
           VERILATOR_ARGS -O3 --x-assign fast --x-initial fast ${params} OPT_SLOW -O1 OPT_GLOBAL -O1)
  target_link_libraries(${B_TARGET}_model PUBLIC PkgConfig::SYSTEMC)
  # Generated code: its warnings are Verilator's business, not this project's.
  target_compile_options(${B_TARGET}_model PRIVATE -w)
  if(DPUSIM_SANITIZE)
    # Verilator 5.006's trace runtime (verilated_trace_imp.h) stores 64-bit values at 4-byte
    # aligned places of its buffer: UBSan's alignment check would report Verilator's code.
    target_compile_options(${B_TARGET}_model PRIVATE -fno-sanitize=alignment)
  endif()
  # For the adapter, which includes V<top>.h (verilate() sets them for the model's own sources).
  target_compile_definitions(${B_TARGET}_model INTERFACE VM_SC=1 VM_TRACE=${vm_trace} VM_COVERAGE=0)

  add_test(NAME rtl_lint_${B_TOP} COMMAND ${VERILATOR_BIN} --lint-only -Wall --top-module ${B_TOP} ${params} ${files})
  set_tests_properties(rtl_lint_${B_TOP} PROPERTIES LABELS rtl)
endfunction()
