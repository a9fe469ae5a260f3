// Opens an hprof file with VisualVM's heap library (the jar from Debian's
// visualvm package) and prints what it sees as one JSON object: the number
// of instances, the class histogram (name -> instances, bytes), and the
// biggest retained sizes; with "all", every instance's size and retained
// size. tests/export/hprof_test.cpp compares this with goheap's own numbers.
import java.io.File;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.graalvm.visualvm.lib.jfluid.heap.Heap;
import org.graalvm.visualvm.lib.jfluid.heap.HeapFactory;
import org.graalvm.visualvm.lib.jfluid.heap.Instance;
import org.graalvm.visualvm.lib.jfluid.heap.JavaClass;

public class HprofCheck {
  static String quote(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') b.append('\\').append(c);
      else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
      else b.append(c);
    }
    return b.append('"').toString();
  }

  public static void main(String[] args) throws Exception {
    Heap heap = HeapFactory.createHeap(new File(args[0]));
    boolean all = args.length > 1 && args[1].equals("all");
    // Classes of one name (several sizes or layouts) are added up.
    Map<String, long[]> histogram = new TreeMap<>();
    long instances = 0, bytes = 0;
    for (JavaClass c : heap.getAllClasses()) {
      int n = c.getInstancesCount();
      if (n == 0) continue;
      long[] row = histogram.computeIfAbsent(c.getName(), k -> new long[2]);
      long size = c.getAllInstancesSize();
      row[0] += n;
      row[1] += size;
      instances += n;
      bytes += size;
    }
    StringBuilder out = new StringBuilder();
    out.append("{\"instances\":").append(instances).append(",\"bytes\":").append(bytes);
    out.append(",\"classes\":[");
    boolean first = true;
    for (Map.Entry<String, long[]> e : histogram.entrySet()) {
      if (!first) out.append(',');
      first = false;
      out.append("{\"name\":").append(quote(e.getKey())).append(",\"count\":")
          .append(e.getValue()[0]).append(",\"bytes\":").append(e.getValue()[1]).append('}');
    }
    out.append("],\"top\":[");
    first = true;
    for (Instance i : heap.getBiggestObjectsByRetainedSize(20)) {
      if (!first) out.append(',');
      first = false;
      out.append("{\"id\":").append(i.getInstanceId()).append(",\"retained\":")
          .append(i.getRetainedSize()).append(",\"size\":").append(i.getSize()).append('}');
    }
    out.append(']');
    if (all) {
      out.append(",\"all\":[");
      first = true;
      for (Iterator<Instance> it = heap.getAllInstancesIterator(); it.hasNext();) {
        Instance i = it.next();
        if (!first) out.append(',');
        first = false;
        out.append('[').append(i.getInstanceId()).append(',').append(i.getSize()).append(',')
            .append(i.getRetainedSize()).append(',').append(quote(i.getJavaClass().getName()))
            .append(']');
      }
      out.append(']');
    }
    out.append("}\n");
    System.out.print(out);
  }
}
