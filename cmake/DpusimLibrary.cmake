# dpusim_library(TARGET PREFIX [SOURCES...]): a static library whose headers are included as
# "PREFIX/header.h" by its users, and only by the targets that link it.
#
# The library's public include root is a directory of its own in the build tree holding one
# symbolic link, PREFIX -> the library's source folder. A target sees "net/wire.h" only if it
# links dpusim_net (directly or through a library that does), so CMake's link graph is the
# layering (p4 <- tlm <- models <- pybind): a model that includes a header of a layer it does
# not depend on fails to compile.
function(dpusim_library target prefix)
  set(root ${CMAKE_BINARY_DIR}/include/${target})
  get_filename_component(parent ${root}/${prefix} DIRECTORY)
  file(MAKE_DIRECTORY ${parent})
  file(CREATE_LINK ${CMAKE_CURRENT_SOURCE_DIR} ${root}/${prefix} SYMBOLIC)
  if(ARGN)
    add_library(${target} STATIC ${ARGN})
    target_include_directories(${target} PUBLIC ${root})
  else()
    add_library(${target} INTERFACE)
    target_include_directories(${target} INTERFACE ${root})
  endif()
endfunction()
