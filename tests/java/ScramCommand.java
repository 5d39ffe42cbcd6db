import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.clients.admin.AlterUserScramCredentialsResult;
import org.apache.kafka.clients.admin.DescribeUserScramCredentialsResult;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialAlteration;
import org.apache.kafka.clients.admin.UserScramCredentialDeletion;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.admin.UserScramCredentialsDescription;

/**
 * SCRAM user management of the driver (KIP-554, {@code Admin.alterUserScramCredentials} and
 * {@code Admin.describeUserScramCredentials}).
 *
 * <pre>
 * alter-scram-users [--upsert USER=MECHANISM:ITERATIONS:PASSWORD]... [--delete USER=MECHANISM]...
 * describe-scram-users [USER]...      (no user: every user with credentials)
 * </pre>
 *
 * MECHANISM is SCRAM-SHA-256 or SCRAM-SHA-512. One JSON line: {@code "users"} maps each user to
 * {@code {"ok":true}} (alter) or its credentials as [{mechanism, iterations}] (describe), or to
 * the error fields of {@link MoldauClient#errorFields}.
 */
final class ScramCommand {
    private ScramCommand() {}

    private static ScramMechanism mechanism(String name) {
        ScramMechanism m = ScramMechanism.fromMechanismName(name);
        if (m == ScramMechanism.UNKNOWN) throw new Args.UsageException("unknown SCRAM mechanism " + name);
        return m;
    }

    static int alter(Args args) throws InterruptedException {
        List<UserScramCredentialAlteration> alterations = new ArrayList<>();
        args.pairs("upsert").forEach((user, spec) -> {
            String[] parts = spec.split(":", 3);
            if (parts.length != 3) throw new Args.UsageException("wants USER=MECHANISM:ITERATIONS:PASSWORD");
            ScramCredentialInfo info = new ScramCredentialInfo(mechanism(parts[0]), Integer.parseInt(parts[1]));
            alterations.add(new UserScramCredentialUpsertion(user, info, parts[2]));
        });
        args.pairs("delete").forEach((user, mech) -> alterations.add(new UserScramCredentialDeletion(user, mechanism(mech))));
        return AdminSupport.withAdmin(args, admin -> {
            AlterUserScramCredentialsResult result = admin.alterUserScramCredentials(alterations);
            Map<String, Object> users = new TreeMap<>();
            result.values().forEach((user, future) -> {
                try {
                    future.get();
                    users.put(user, Json.obj("ok", true));
                } catch (ExecutionException e) {
                    users.put(user, MoldauClient.errorFields(e));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            });
            Json.emit(Json.obj("op", "alter-scram-users", "ok", true, "users", users));
        });
    }

    static int describe(Args args) throws InterruptedException {
        List<String> wanted = new ArrayList<>(args.positional);
        return AdminSupport.withAdmin(args, admin -> {
            Map<String, Object> line = Json.obj("op", "describe-scram-users");
            DescribeUserScramCredentialsResult result =
                    wanted.isEmpty() ? admin.describeUserScramCredentials() : admin.describeUserScramCredentials(wanted);
            try {
                List<String> users = wanted.isEmpty() ? result.users().get() : wanted;
                Map<String, Object> described = new TreeMap<>();
                for (String user : users) {
                    try {
                        UserScramCredentialsDescription d = result.description(user).get();
                        List<Object> infos = Json.list();
                        for (ScramCredentialInfo info : d.credentialInfos()) {
                            infos.add(Json.obj("mechanism", info.mechanism().mechanismName(), "iterations", info.iterations()));
                        }
                        described.put(user, Json.obj("ok", true, "credentials", infos));
                    } catch (ExecutionException e) {
                        described.put(user, MoldauClient.errorFields(e));
                    }
                }
                line.put("ok", true);
                line.put("users", described);
            } catch (ExecutionException e) {
                line.putAll(MoldauClient.errorFields(e));
            }
            Json.emit(line);
        });
    }
}
