# The layer table: which folders under src/ each folder may use. It is kept
# here once. CMakeLists.txt builds one static library per layer from it
# (goheap_<layer>, linking goheap_<dep> for each dep), and this file writes it
# to ${CMAKE_BINARY_DIR}/generated/layers.txt, one "layer: dep dep ..." line
# per layer in this order, which tests/layering_test.cpp reads (as
# GOHEAP_LAYERS_FILE) to fail on an #include the table does not allow.
# Layers are listed bottom up: a layer may use only layers listed before it.
# See docs/architecture.md.
set(GOHEAP_LAYERS util model bin dump core acquire graph binding typing analysis cache export web query sql questions mcp serve cli)
set(GOHEAP_DEPS_util "")
set(GOHEAP_DEPS_model util)
set(GOHEAP_DEPS_bin util)
set(GOHEAP_DEPS_dump util model)
set(GOHEAP_DEPS_core util model bin)
set(GOHEAP_DEPS_acquire util model bin core)
set(GOHEAP_DEPS_graph util model)
set(GOHEAP_DEPS_binding util model bin)
set(GOHEAP_DEPS_typing util model bin graph binding)
set(GOHEAP_DEPS_analysis util model bin core graph binding typing)
set(GOHEAP_DEPS_cache util model dump bin core graph binding typing analysis)
set(GOHEAP_DEPS_export util model bin core graph binding typing analysis)
set(GOHEAP_DEPS_web util)
set(GOHEAP_DEPS_query util model dump bin core acquire graph binding typing analysis cache)
set(GOHEAP_DEPS_sql util model dump bin core acquire graph binding typing analysis cache query)
set(GOHEAP_DEPS_questions util model dump bin core acquire graph binding typing analysis cache query sql)
set(GOHEAP_DEPS_mcp util model dump bin core acquire graph binding typing analysis cache query sql questions web)
set(GOHEAP_DEPS_serve util model dump bin core acquire graph binding typing analysis cache query sql questions web mcp)
set(GOHEAP_DEPS_cli util model dump bin core acquire graph binding typing analysis cache export web query sql questions mcp serve)

set(GOHEAP_LAYERS_FILE ${CMAKE_BINARY_DIR}/generated/layers.txt)
set(_goheap_layers_text "")
foreach(_goheap_layer IN LISTS GOHEAP_LAYERS)
  string(REPLACE ";" " " _goheap_deps "${GOHEAP_DEPS_${_goheap_layer}}")
  string(APPEND _goheap_layers_text "${_goheap_layer}: ${_goheap_deps}\n")
endforeach()
# Rewritten only when the table changes.
file(CONFIGURE OUTPUT ${GOHEAP_LAYERS_FILE} CONTENT "${_goheap_layers_text}" @ONLY)
unset(_goheap_layer)
unset(_goheap_deps)
unset(_goheap_layers_text)
