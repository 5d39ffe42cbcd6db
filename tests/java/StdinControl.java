import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@code --stdin-control}: a test stops a long-running produce or consume by writing "stop" to
 * its stdin or closing it; the command then finishes cleanly (flush, commit, leave the group)
 * and prints its summary.
 */
final class StdinControl {
    private StdinControl() {}

    /** Returns the stop flag; {@code onStop} (may be null) runs once when stop is requested. */
    static AtomicBoolean start(Runnable onStop) {
        AtomicBoolean stop = new AtomicBoolean(false);
        Thread t = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    if (line.trim().equals("stop")) break;
                }
            } catch (IOException e) {
                // A broken stdin means the test is gone: stop as well.
            }
            stop.set(true);
            if (onStop != null) onStop.run();
        }, "stdin-control");
        t.setDaemon(true);
        t.start();
        return stop;
    }
}
