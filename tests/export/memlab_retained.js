// Loads a .heapsnapshot with memlab (@memlab/core) and writes what memlab
// makes of it, for tests/export/heapsnapshot_test.cpp: a first line
// "nodes <count> self <total self size>", then "<id> <retained size>" per
// node. memlab computes the dominator tree itself (Lengauer-Tarjan from
// node 0, as Chrome DevTools does).
//   node memlab_retained.js NODE_MODULES_DIR SNAPSHOT OUT
'use strict';
const fs = require('fs');
const path = require('path');

async function main() {
  const [modules, snapshotFile, outFile] = process.argv.slice(2);
  const memlab = require(path.resolve(modules, '@memlab', 'core'));
  memlab.config.muteConsole = true;
  const heap = await memlab.utils.getSnapshotFromFile(snapshotFile, {buildNodeIdIndex: true});
  if (!heap) throw new Error('memlab could not parse ' + snapshotFile);
  memlab.analysis.preparePathFinder(heap);
  let count = 0;
  let self = 0;
  const lines = [];
  heap.nodes.forEach((node) => {
    count++;
    self += node.self_size;
    lines.push(node.id + ' ' + node.retainedSize);
  });
  fs.writeFileSync(outFile, 'nodes ' + count + ' self ' + self + '\n' + lines.join('\n') + '\n');
}

main().catch((e) => {
  console.error(e && e.stack ? e.stack : String(e));
  process.exit(1);
});
