package io.leaderelection.kubernetes;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.leaderelection.store.ContainerInstance;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The run of the container a Lease's holder runs in, as the JSON of the Lease's annotation
 * {@value #NAME}, e.g.
 * <pre>{"holder": "orders-7d9f_x2k1", "namespace": "team-a", "pod": "orders-7d9f", "uid": "6f1c...",
 * "container": "app", "restartCount": 0}</pre>
 * The holder writes it with every claim and renewal and removes it with its release. A reader
 * takes it only when it has exactly these members, each of its type: a member it does not know may
 * narrow what the writer meant as proof, so an annotation of a later version, or one edited by
 * hand, is ignored, and its holder waited out.
 */
final class HolderInstanceAnnotation {

	static final String NAME = KubernetesLeaseStore.HOLDER_INSTANCE_ANNOTATION;

	private static final Logger logger = LoggerFactory.getLogger(HolderInstanceAnnotation.class);

	private static final Set<String> MEMBERS = Set.of("holder", "namespace", "pod", "uid", "container", "restartCount");

	private final KubernetesSerialization serialization;

	private final String lease;

	/** The last annotation found unreadable, logged once. */
	private volatile String lastIgnored;

	HolderInstanceAnnotation(KubernetesSerialization serialization, String lease) {
		this.serialization = serialization;
		this.lease = lease;
	}

	/** The run the metadata's annotation names; {@code null} when none, or one this version cannot read. */
	ContainerInstance read(ObjectMeta metadata) {
		String json = (metadata != null && metadata.getAnnotations() != null) ? metadata.getAnnotations().get(NAME)
				: null;
		if (json == null) {
			return null;
		}
		try {
			Map<?, ?> members = this.serialization.unmarshal(json, Map.class);
			if (members == null || !members.keySet().equals(MEMBERS)) {
				throw new IllegalArgumentException("its members are " + ((members != null) ? members.keySet() : "none")
						+ ", not " + MEMBERS);
			}
			Object restartCount = members.get("restartCount");
			if (!(restartCount instanceof Integer count)) {
				throw new IllegalArgumentException("restartCount is " + restartCount + ", not an integer");
			}
			return new ContainerInstance(text(members, "holder"), text(members, "namespace"), text(members, "pod"),
					text(members, "uid"), text(members, "container"), count);
		}
		catch (RuntimeException ex) {
			if (!json.equals(this.lastIgnored)) {
				this.lastIgnored = json;
				logger.info("The annotation {} of {} names no container run this version reads, and is ignored: "
						+ "its holder is waited out for its lease duration ({})", NAME, this.lease, ex.getMessage());
			}
			return null;
		}
	}

	/** Names the run in the metadata's annotation, or removes it for {@code null}. */
	void write(ContainerInstance instance, ObjectMeta metadata) {
		Map<String, String> annotations = (metadata.getAnnotations() != null)
				? new LinkedHashMap<>(metadata.getAnnotations()) : new LinkedHashMap<>();
		if (instance == null) {
			if (annotations.remove(NAME) != null) {
				metadata.setAnnotations(annotations);
			}
			return;
		}
		Map<String, Object> members = new LinkedHashMap<>();
		members.put("holder", instance.holder());
		members.put("namespace", instance.namespace());
		members.put("pod", instance.pod());
		members.put("uid", instance.podUid());
		members.put("container", instance.container());
		members.put("restartCount", instance.restartCount());
		annotations.put(NAME, this.serialization.asJson(members));
		metadata.setAnnotations(annotations);
	}

	private static String text(Map<?, ?> members, String name) {
		Object value = members.get(name);
		if (!(value instanceof String text) || text.isEmpty()) {
			throw new IllegalArgumentException(name + " is " + value + ", not a name");
		}
		return text;
	}

}
