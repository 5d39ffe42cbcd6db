import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

/**
 * Command line of the driver: positional arguments and {@code --name value} options, where an
 * option followed by nothing or by another {@code --option} is a flag ("true"). Options may
 * repeat ({@code --config k=v --config k2=v2}). Every option a command reads is marked used, so
 * a mistyped option is refused instead of silently ignored.
 */
final class Args {
    static final class UsageException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UsageException(String message) {
            super(message);
        }
    }

    final String command;
    final List<String> positional = new ArrayList<>();
    private final Map<String, List<String>> options = new LinkedHashMap<>();
    private final Set<String> used = new HashSet<>();

    Args(String[] argv) {
        if (argv.length == 0) throw new UsageException("missing command");
        command = argv[0];
        for (int i = 1; i < argv.length; i++) {
            String a = argv[i];
            if (a.startsWith("--") && a.length() > 2) {
                String name = a.substring(2);
                String value = "true";
                int eq = name.indexOf('=');
                if (eq > 0) {
                    value = name.substring(eq + 1);
                    name = name.substring(0, eq);
                } else if (i + 1 < argv.length && !argv[i + 1].startsWith("--")) {
                    value = argv[++i];
                }
                options.computeIfAbsent(name, k -> new ArrayList<>()).add(value);
            } else {
                positional.add(a);
            }
        }
    }

    String str(String name, String dflt) {
        used.add(name);
        List<String> v = options.get(name);
        return v == null ? dflt : v.get(v.size() - 1);
    }

    String required(String name) {
        String v = str(name, null);
        if (v == null) throw new UsageException("--" + name + " is required for " + command);
        return v;
    }

    boolean has(String name) {
        used.add(name);
        return options.containsKey(name);
    }

    List<String> all(String name) {
        used.add(name);
        return options.getOrDefault(name, List.of());
    }

    long longOpt(String name, long dflt) {
        String v = str(name, null);
        if (v == null) return dflt;
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new UsageException("--" + name + " wants a number, got " + v);
        }
    }

    int intOpt(String name, int dflt) {
        return Math.toIntExact(longOpt(name, dflt));
    }

    boolean bool(String name, boolean dflt) {
        String v = str(name, null);
        if (v == null) return dflt;
        if (v.equalsIgnoreCase("true")) return true;
        if (v.equalsIgnoreCase("false")) return false;
        throw new UsageException("--" + name + " wants true or false, got " + v);
    }

    String choice(String name, String dflt, String... allowed) {
        String v = str(name, dflt);
        for (String a : allowed) if (a.equals(v)) return v;
        throw new UsageException("--" + name + " must be one of " + String.join("|", allowed) + ", got " + v);
    }

    String positional(int i, String what) {
        if (i >= positional.size()) throw new UsageException(command + ": missing " + what);
        return positional.get(i);
    }

    /** {@code k=v} pairs of a repeatable option. */
    Map<String, String> pairs(String name) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String kv : all(name)) {
            int eq = kv.indexOf('=');
            if (eq <= 0) throw new UsageException("--" + name + " wants key=value, got " + kv);
            m.put(kv.substring(0, eq), kv.substring(eq + 1));
        }
        return m;
    }

    /** Client properties shared by every command: bootstrap, client id, extra --property k=v. */
    Properties clientProperties() {
        Properties p = new Properties();
        p.put("bootstrap.servers", required("bootstrap"));
        String clientId = str("client-id", null);
        if (clientId != null) p.put("client.id", clientId);
        return p;
    }

    /** Extra --property k=v, applied last so a test can override anything. */
    void applyExtraProperties(Properties p) {
        p.putAll(pairs("property"));
    }

    /** Refuse options no command read (typos would otherwise change nothing silently). */
    void checkAllUsed() {
        for (String name : options.keySet()) {
            if (!used.contains(name)) throw new UsageException("unknown option --" + name + " for " + command);
        }
    }
}
