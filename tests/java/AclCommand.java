import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.CreateAclsResult;
import org.apache.kafka.clients.admin.DeleteAclsResult;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AccessControlEntryFilter;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourcePatternFilter;
import org.apache.kafka.common.resource.ResourceType;

/**
 * The ACL admin commands of the driver (Admin.createAcls / describeAcls / deleteAcls).
 *
 * <pre>
 * create-acls --acl TYPE,PATTERN,NAME,PRINCIPAL,HOST,OPERATION,PERMISSION...
 * describe-acls [--filter TYPE,PATTERN,NAME,PRINCIPAL,HOST,OPERATION,PERMISSION]
 * delete-acls --filter TYPE,PATTERN,NAME,PRINCIPAL,HOST,OPERATION,PERMISSION...
 * </pre>
 *
 * Names are Kafka's enum names in any case (topic, prefixed, read, allow; any/match in filters);
 * in a filter "-" stands for null (any name, principal or host). One JSON line per command.
 */
final class AclCommand {
    private AclCommand() {}

    private static String[] fields(String text) {
        String[] f = text.split(",", -1);
        if (f.length != 7) throw new Args.UsageException("wants TYPE,PATTERN,NAME,PRINCIPAL,HOST,OPERATION,PERMISSION: " + text);
        return f;
    }

    private static String up(String s) {
        return s.toUpperCase(Locale.ROOT);
    }

    private static String orNull(String s) {
        return s.equals("-") ? null : s;
    }

    private static AclBinding binding(String text) {
        String[] f = fields(text);
        return new AclBinding(
                new ResourcePattern(ResourceType.fromString(up(f[0])), f[2], PatternType.fromString(up(f[1]))),
                new AccessControlEntry(f[3], f[4], AclOperation.fromString(up(f[5])), AclPermissionType.fromString(up(f[6]))));
    }

    private static AclBindingFilter filter(String text) {
        String[] f = fields(text);
        return new AclBindingFilter(
                new ResourcePatternFilter(ResourceType.fromString(up(f[0])), orNull(f[2]), PatternType.fromString(up(f[1]))),
                new AccessControlEntryFilter(orNull(f[3]), orNull(f[4]), AclOperation.fromString(up(f[5])),
                        AclPermissionType.fromString(up(f[6]))));
    }

    static Map<String, Object> json(AclBinding b) {
        return Json.obj(
                "resource_type", b.pattern().resourceType().name(),
                "pattern_type", b.pattern().patternType().name(),
                "name", b.pattern().name(),
                "principal", b.entry().principal(),
                "host", b.entry().host(),
                "operation", b.entry().operation().name(),
                "permission", b.entry().permissionType().name());
    }

    static int createAcls(Args args) throws InterruptedException {
        List<AclBinding> bindings = new ArrayList<>();
        for (String a : args.all("acl")) bindings.add(binding(a));
        return AdminSupport.withAdmin(args, admin -> {
            CreateAclsResult result = admin.createAcls(bindings);
            List<Object> results = new ArrayList<>();
            for (AclBinding b : bindings) {
                try {
                    result.values().get(b).get();
                    results.add(Json.obj("ok", true));
                } catch (ExecutionException e) {
                    results.add(MoldauClient.errorFields(e));
                }
            }
            Json.emit(Json.obj("op", "create-acls", "ok", true, "results", results));
        });
    }

    static int describeAcls(Args args) throws InterruptedException {
        AclBindingFilter f = args.has("filter") ? filter(args.required("filter")) : AclBindingFilter.ANY;
        return AdminSupport.withAdmin(args, admin -> {
            Map<String, Object> line = Json.obj("op", "describe-acls");
            try {
                List<Object> acls = new ArrayList<>();
                for (AclBinding b : admin.describeAcls(f).values().get()) acls.add(json(b));
                line.put("ok", true);
                line.put("acls", acls);
            } catch (ExecutionException e) {
                line.putAll(MoldauClient.errorFields(e));
            }
            Json.emit(line);
        });
    }

    static int deleteAcls(Args args) throws InterruptedException {
        List<AclBindingFilter> filters = new ArrayList<>();
        for (String a : args.all("filter")) filters.add(filter(a));
        return AdminSupport.withAdmin(args, admin -> {
            DeleteAclsResult result = admin.deleteAcls(filters);
            List<Object> out = new ArrayList<>();
            for (AclBindingFilter f : filters) {
                try {
                    List<Object> deleted = new ArrayList<>();
                    for (DeleteAclsResult.FilterResult r : result.values().get(f).get().values()) {
                        deleted.add(r.exception() == null ? json(r.binding()) : MoldauClient.errorFields(r.exception()));
                    }
                    out.add(Json.obj("ok", true, "deleted", deleted));
                } catch (ExecutionException e) {
                    out.add(MoldauClient.errorFields(e));
                }
            }
            Json.emit(Json.obj("op", "delete-acls", "ok", true, "filters", out));
        });
    }
}
