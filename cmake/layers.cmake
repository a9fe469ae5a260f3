# The layer table: which folders under src/ each folder may use. It is kept
# here once. CMakeLists.txt builds one static library per layer from it
# (goheap_<layer>, linking goheap_<dep> for each dep), and this file writes it
# to ${CMAKE_BINARY_DIR}/generated/layers.txt, one "layer: dep dep ..." line
# per layer in this order, which tests/layering_test.cpp reads (as
# GOHEAP_LAYERS_FILE) to fail on an #include the table does not allow.
# Layers are listed bottom up: a layer may use only layers listed before it.
# See docs/architecture.md.
set(GOHEAP_LAYERS util goruntime model bin dump core acquire graph binding typing analysis cache export web query sql questions mcp serve cli)
set(GOHEAP_DEPS_util "")
set(GOHEAP_DEPS_goruntime util)
set(GOHEAP_DEPS_model util goruntime)
set(GOHEAP_DEPS_bin util goruntime)
set(GOHEAP_DEPS_dump util goruntime model)
set(GOHEAP_DEPS_core util goruntime model bin)
set(GOHEAP_DEPS_acquire util goruntime model bin core)
set(GOHEAP_DEPS_graph util goruntime model)
set(GOHEAP_DEPS_binding util goruntime model bin)
set(GOHEAP_DEPS_typing util goruntime model bin graph binding)
set(GOHEAP_DEPS_analysis util goruntime model bin graph binding typing)
set(GOHEAP_DEPS_cache util goruntime model bin graph binding typing analysis)
set(GOHEAP_DEPS_export util goruntime model bin graph binding typing analysis)
set(GOHEAP_DEPS_web util)
set(GOHEAP_DEPS_query util goruntime model dump bin core acquire graph binding typing analysis cache)
set(GOHEAP_DEPS_sql util goruntime model dump bin core acquire graph binding typing analysis cache query)
set(GOHEAP_DEPS_questions util goruntime model dump bin core acquire graph binding typing analysis cache query sql)
set(GOHEAP_DEPS_mcp util goruntime model dump bin core acquire graph binding typing analysis cache query sql questions web)
set(GOHEAP_DEPS_serve util goruntime model dump bin core acquire graph binding typing analysis cache query sql questions web mcp)
set(GOHEAP_DEPS_cli util goruntime model dump bin core acquire graph binding typing analysis cache export web query sql questions mcp serve)

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
