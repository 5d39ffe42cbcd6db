import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A tiny JSON writer (no extra jars on the test classpath) and the one place that prints to
 * stdout: one JSON object per line, so the Python side can parse the output line by line.
 */
final class Json {
    private Json() {}

    /** Our own buffered stdout: System.out flushes on every line, too slow for record dumps. */
    private static final PrintStream OUT = new PrintStream(
            new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16), false, StandardCharsets.UTF_8);

    /** An ordered JSON object from alternating keys and values. */
    static Map<String, Object> obj(Object... kv) {
        if (kv.length % 2 != 0) throw new IllegalArgumentException("odd number of key/value arguments");
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) m.put((String) kv[i], kv[i + 1]);
        return m;
    }

    static List<Object> list() {
        return new ArrayList<>();
    }

    /** Print one line; buffered (call {@link #flush()} or use {@link #emitNow}). */
    static synchronized void emit(Map<String, Object> line) {
        StringBuilder sb = new StringBuilder(128);
        write(sb, line);
        OUT.append(sb).append('\n');
    }

    /** Print one line and flush: events a test may be waiting for (progress, assignments). */
    static synchronized void emitNow(Map<String, Object> line) {
        emit(line);
        OUT.flush();
    }

    static synchronized void flush() {
        OUT.flush();
    }

    static String toJson(Object value) {
        StringBuilder sb = new StringBuilder();
        write(sb, value);
        return sb.toString();
    }

    static void write(StringBuilder sb, Object v) {
        if (v == null) {
            sb.append("null");
        } else if (v instanceof CharSequence s) {
            string(sb, s);
        } else if (v instanceof Boolean b) {
            sb.append(b ? "true" : "false");
        } else if (v instanceof Double || v instanceof Float) {
            double d = ((Number) v).doubleValue();
            if (Double.isNaN(d) || Double.isInfinite(d)) sb.append("null");
            else sb.append(d);
        } else if (v instanceof Number n) {
            sb.append(n.longValue());
        } else if (v instanceof Map<?, ?> m) {
            sb.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                if (!first) sb.append(',');
                first = false;
                string(sb, String.valueOf(e.getKey()));
                sb.append(':');
                write(sb, e.getValue());
            }
            sb.append('}');
        } else if (v instanceof Collection<?> c) {
            sb.append('[');
            boolean first = true;
            for (Object o : c) {
                if (!first) sb.append(',');
                first = false;
                write(sb, o);
            }
            sb.append(']');
        } else if (v instanceof long[] a) {
            sb.append('[');
            for (int i = 0; i < a.length; i++) {
                if (i > 0) sb.append(',');
                sb.append(a[i]);
            }
            sb.append(']');
        } else if (v instanceof int[] a) {
            sb.append('[');
            for (int i = 0; i < a.length; i++) {
                if (i > 0) sb.append(',');
                sb.append(a[i]);
            }
            sb.append(']');
        } else if (v instanceof Object[] a) {
            write(sb, java.util.Arrays.asList(a));
        } else if (v instanceof Enum<?> e) {
            string(sb, e.name());
        } else {
            string(sb, v.toString());
        }
    }

    private static void string(StringBuilder sb, CharSequence s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    // Control characters and lone surrogates would break strict JSON parsers.
                    if (c < 0x20 || Character.isSurrogate(c)) {
                        if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                            sb.append(c).append(s.charAt(++i));
                        } else {
                            sb.append(String.format("\\u%04x", (int) c));
                        }
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }
}
