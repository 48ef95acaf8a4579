package io.leaderelection.autoconfigure.leaderonly;

import java.lang.reflect.Method;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.leaderelection.LeaderElector;
import io.leaderelection.LeaderOnly;
import io.leaderelection.WindowStatus;
import io.leaderelection.autoconfigure.CrudKubernetesServer;
import io.leaderelection.autoconfigure.leaderonly.LeaderOnlyInvocations.Outcome;
import io.leaderelection.engine.ElectionEngine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.aopalliance.intercept.MethodInterceptor;

import org.springframework.aop.Advisor;
import org.springframework.aop.framework.autoproxy.DefaultAdvisorAutoProxyCreator;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.NameMatchMethodPointcut;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The case of the issue: a job that ran on the old leader at :00 must not run again on the new
 * one at :12, when its own timer fires on its own phase. Two replicas, each its own context and
 * client, on the CRUD mock server: a {@code @LeaderOnly(atMostEvery)} method runs once per
 * window across the handover, where a plain {@code @LeaderOnly} one runs twice.
 */
class LeaderOnlyWindowHandoverTests {

	@RegisterExtension
	static final CrudKubernetesServer server = CrudKubernetesServer.start();

	static final Duration WINDOW = Duration.ofSeconds(6);

	static final Duration TICK_WINDOW = Duration.ofSeconds(3);

	/**
	 * A second call this long after the first of the job: more than a tenth of the period this
	 * makes, and 1.2 s before the window opens, so that a slow machine's stall does not open it.
	 */
	static final Duration HELD_CALL_AFTER = Duration.ofMillis(1800);

	/** The threads that run jobs when due; not the one that times them. */
	static final String DUE_THREAD = "leader-only-due-\\d+";

	/** What a start recorded when the body began may lag the moment the engine counted it from. */
	static final Duration SLACK = Duration.ofMillis(100);

	@Test
	void aJobThatRanOnTheOldLeaderDoesNotRunOnTheNewOneWithinItsWindow() {
		String leaseName = Replicas.freshLeaseName();
		server.createReleased(Replicas.NAMESPACE, leaseName);
		Starts starts = new Starts();
		replica(leaseName, "a", starts).run((a) -> {
			Replicas.awaitLeader(a, "default");
			replica(leaseName, "b", starts).run((b) -> {
				awaitHolderSeen(b, "a");
				// :00 on a
				a.getBean(Jobs.class).report();
				a.getBean(Jobs.class).plainReport();
				Instant ranAt = Instant.now();
				a.getBean(LeaderElector.class).stepDown("default");
				Replicas.awaitLeader(b, "default");
				// :12 on b, whose timer fires on its own phase
				assertThat(Instant.now()).as("b leads within the window").isBefore(ranAt.plus(WINDOW));
				b.getBean(Jobs.class).report();
				b.getBean(Jobs.class).plainReport();
				assertThat(starts.of("report")).extracting(Start::replica).containsExactly("a");
				assertThat(starts.of("plainReport")).as("what @LeaderOnly alone lets through")
					.extracting(Start::replica)
					.containsExactly("a", "b");
				LeaderOnlyInvocations invocations = b.getBean(LeaderOnlyInvocations.class);
				assertThat(invocations.count("default", Outcome.SKIPPED_WINDOW)).isOne();
				WindowStatus window = b.getBean(LeaderElector.class).windows("default").get(0);
				assertThat(window.job()).isEqualTo("jobs.report");
				assertThat(window.startedBy()).isEqualTo("a");
				// the next timer past the window runs it
				await().atMost(WINDOW.plusSeconds(5)).pollInterval(Duration.ofMillis(50)).until(() -> {
					b.getBean(Jobs.class).report();
					return starts.of("report").size() == 2;
				});
				assertThat(starts.of("report").get(1).replica()).isEqualTo("b");
				// from a's start, as b counts it: from when b first saw it written
				assertThat(Duration.between(window.lastStart(), starts.of("report").get(1).at()))
					.isGreaterThanOrEqualTo(WINDOW);
			});
		});
	}

	/**
	 * Both replicas' timers run the job every second, each on its own phase, the job's window a
	 * little shorter, so that a timer's jitter does not skip a run on one leader. Starts are
	 * compared as the replicas recorded them, each converted to wall time when read, which may
	 * shift it by the moment the conversion sampled its clocks: a few milliseconds are allowed.
	 */
	@Test
	void aScheduledJobKeepsItsWindowAcrossAHandover() {
		String leaseName = Replicas.freshLeaseName();
		server.createReleased(Replicas.NAMESPACE, leaseName);
		List<Instant> starts = new CopyOnWriteArrayList<>();
		List<String> runBy = new CopyOnWriteArrayList<>();
		replica(leaseName, "a", null).withUserConfiguration(Timers.class)
			.withBean(Ticker.class, () -> new Ticker(starts, runBy))
			.run((a) -> {
				Replicas.awaitLeader(a, "default");
				replica(leaseName, "b", null).withUserConfiguration(Timers.class)
					.withBean(Ticker.class, () -> new Ticker(starts, runBy))
					.run((b) -> {
						await().atMost(Replicas.WAIT).until(() -> runBy.stream().filter("a"::equals).count() >= 2);
						a.getBean(LeaderElector.class).stepDown("default");
						await().atMost(Replicas.WAIT).until(() -> runBy.stream().filter("b"::equals).count() >= 2);
					});
			});
		List<Instant> ordered = new ArrayList<>(starts);
		ordered.sort(Comparator.naturalOrder());
		for (int run = 1; run < ordered.size(); run++) {
			assertThat(Duration.between(ordered.get(run - 1), ordered.get(run)))
				.as("between starts %d and %d of %s", run - 1, run, ordered)
				.isGreaterThanOrEqualTo(Ticker.WINDOW.minusMillis(5));
		}
	}

	/**
	 * A leader's timer call that comes before the window opens, over a tenth of a period after the
	 * last start, is held and runs once the window opens, on a thread of the starter's, without
	 * another call and through the advice in front of {@code @LeaderOnly}; a call while one is held
	 * is skipped.
	 */
	@Test
	void aLeadersCallBeforeTheWindowOpensRunsWhenItOpens() {
		String leaseName = Replicas.freshLeaseName();
		server.createReleased(Replicas.NAMESPACE, leaseName);
		Starts starts = new Starts();
		SeenThreads advised = new SeenThreads();
		replica(leaseName, "a", starts).withUserConfiguration(AdviceBeforeLeaderOnly.class)
			.withBean(SeenThreads.class, () -> advised)
			.run((a) -> {
				Replicas.awaitLeader(a, "default");
				Jobs jobs = a.getBean(Jobs.class);
				DueStarts due = a.getBean(DueStarts.class);
				jobs.tick();
				awaitSinceLastStart(a, "jobs.tick", HELD_CALL_AFTER);
				jobs.tick();
				assertThat(due.runsDue("default", "jobs.tick")).as("a run held").isTrue();
				jobs.tick();
				assertThat(starts.of("tick")).hasSize(1);
				await().atMost(Replicas.WAIT).until(() -> starts.of("tick").size() == 2);
				Start held = starts.of("tick").get(1);
				assertThat(held.thread()).matches(DUE_THREAD);
				assertThat(advised.threads).as("threads the advice in front of @LeaderOnly saw")
					.anyMatch((thread) -> thread.matches(DUE_THREAD));
				assertThat(Duration.between(starts.of("tick").get(0).at(), held.at()))
					.isGreaterThanOrEqualTo(TICK_WINDOW.minus(SLACK));
				LeaderOnlyInvocations invocations = a.getBean(LeaderOnlyInvocations.class);
				assertThat(invocations.count("default", Outcome.EXECUTED)).isEqualTo(2);
				assertThat(invocations.count("default", Outcome.SKIPPED_WINDOW)).isOne();
			});
	}

	/** A call less than a tenth of a period after the last start is that run's, come late: skipped, not held. */
	@Test
	void aLeadersCallJustAfterTheLastStartIsSkipped() {
		String leaseName = Replicas.freshLeaseName();
		server.createReleased(Replicas.NAMESPACE, leaseName);
		Starts starts = new Starts();
		replica(leaseName, "a", starts).run((a) -> {
			Replicas.awaitLeader(a, "default");
			Jobs jobs = a.getBean(Jobs.class);
			DueStarts due = a.getBean(DueStarts.class);
			jobs.tick();
			awaitSinceLastStart(a, "jobs.tick", HELD_CALL_AFTER);
			jobs.tick();
			await().atMost(Replicas.WAIT)
				.pollInterval(Duration.ofMillis(10))
				.until(() -> starts.of("tick").size() == 2 && !due.runsDue("default", "jobs.tick"));
			// the period is now over a second: a call within a tenth of it after the held run's start
			// is that run's call, late
			jobs.tick();
			assertThat(due.runsDue("default", "jobs.tick")).as("a run held").isFalse();
			assertThat(starts.of("tick")).hasSize(2);
			assertThat(a.getBean(LeaderOnlyInvocations.class).count("default", Outcome.SKIPPED_WINDOW)).isOne();
		});
	}

	/**
	 * The gap after a graceful handover: b's timer fires a second after a's, so its next
	 * call would come a second after the job is due. b, which takes over, starts the job when it
	 * is due, without that call.
	 */
	@Test
	void aReplicaThatTakesOverStartsTheJobWhenItIsDueNotAtItsTimersNextCall() {
		String leaseName = Replicas.freshLeaseName();
		server.createReleased(Replicas.NAMESPACE, leaseName);
		Starts starts = new Starts();
		replica(leaseName, "a", starts).run((a) -> {
			Replicas.awaitLeader(a, "default");
			replica(leaseName, "b", starts).run((b) -> {
				awaitHolderSeen(b, "a");
				// b's timer, a follower's, a period of 3 s: calls 2 s before and 1 s after a's run, so
				// that its next call would come a second after the job is due
				b.getBean(Jobs.class).tick();
				passes(TICK_WINDOW.minusSeconds(1));
				a.getBean(Jobs.class).tick();
				awaitSinceLastStart(b, "jobs.tick", Duration.ofSeconds(1));
				b.getBean(Jobs.class).tick();
				a.getBean(LeaderElector.class).stepDown("default");
				Replicas.awaitLeader(b, "default");
				await().atMost(Replicas.WAIT).until(() -> starts.of("tick").size() == 2);
				List<Start> ticks = starts.of("tick");
				assertThat(ticks).extracting(Start::replica).containsExactly("a", "b");
				assertThat(ticks.get(1).thread()).matches(DUE_THREAD);
				assertThat(Duration.between(ticks.get(0).at(), ticks.get(1).at()))
					.isGreaterThanOrEqualTo(TICK_WINDOW.minus(SLACK));
			});
		});
	}

	/** A run held on a leader that steps down before it is due does not run there. */
	@Test
	void aRunHeldOnALeaderThatStepsDownDoesNotRun() {
		String leaseName = Replicas.freshLeaseName();
		server.createReleased(Replicas.NAMESPACE, leaseName);
		Starts starts = new Starts();
		replica(leaseName, "a", starts).run((a) -> {
			Replicas.awaitLeader(a, "default");
			replica(leaseName, "b", null).run((b) -> {
				awaitHolderSeen(b, "a");
				Jobs jobs = a.getBean(Jobs.class);
				DueStarts due = a.getBean(DueStarts.class);
				jobs.tick();
				awaitSinceLastStart(a, "jobs.tick", HELD_CALL_AFTER);
				jobs.tick();
				assertThat(due.runsDue("default", "jobs.tick")).as("a run held").isTrue();
				a.getBean(LeaderElector.class).stepDown("default");
				Replicas.awaitLeader(b, "default");
				LeaderOnlyInvocations invocations = a.getBean(LeaderOnlyInvocations.class);
				await().atMost(Replicas.WAIT).until(() -> invocations.count("default", Outcome.SKIPPED) == 1);
				assertThat(starts.of("tick")).hasSize(1);
			});
		});
	}

	/** Until the replica has seen the holder in the Lease, as a follower does. */
	private static void awaitHolderSeen(ApplicationContext replica, String holder) {
		await().atMost(Replicas.WAIT)
			.until(() -> holder.equals(replica.getBean(LeaderElector.class).status("default").holderIdentity()));
	}

	/**
	 * Until the replica counts the given time since the job's last start, on the clock its window
	 * is measured on: the time between a run and the next call, which gives the job's rhythm.
	 */
	private static void awaitSinceLastStart(ApplicationContext replica, String job, Duration time) {
		ElectionEngine engine = replica.getBean(ElectionEngine.class);
		await().atMost(Replicas.WAIT)
			.pollInterval(Duration.ofMillis(10))
			.until(() -> engine.windowTimes("default", job)
				.map((times) -> times.sinceLastStart().compareTo(time) >= 0)
				.orElse(false));
	}

	/**
	 * The time between two calls of a follower's timer, which gives the job's rhythm: nothing on
	 * the replica tells when it called last, a follower's call not being a run.
	 */
	private static void passes(Duration time) throws InterruptedException {
		Thread.sleep(time.toMillis());
	}

	/**
	 * A replica of its own identity, with roomier timings than {@link Replicas}': a leader that
	 * loses its Lease to a slow renewal on a busy machine would step down from nothing, and stay.
	 */
	private static ApplicationContextRunner replica(String leaseName, String identity, Starts starts) {
		ApplicationContextRunner runner = Replicas.replica(server, leaseName)
			.withPropertyValues("leader.election.identity=" + identity, "leader.election.lease-duration=4s",
					"leader.election.renew-deadline=3s", "leader.election.retry-period=500ms");
		return (starts != null) ? runner.withBean("jobs", Jobs.class, () -> new Jobs(identity, starts)) : runner;
	}

	record Start(String replica, String job, Instant at, String thread) {

	}

	static final class Starts {

		private final List<Start> starts = new CopyOnWriteArrayList<>();

		void add(String replica, String job) {
			this.starts.add(new Start(replica, job, Instant.now(), Thread.currentThread().getName()));
		}

		List<Start> of(String job) {
			return this.starts.stream().filter((start) -> start.job().equals(job)).toList();
		}

	}

	static class Jobs {

		private final String replica;

		private final Starts starts;

		Jobs(String replica, Starts starts) {
			this.replica = replica;
			this.starts = starts;
		}

		@LeaderOnly(atMostEvery = "6s")
		public void report() {
			this.starts.add(this.replica, "report");
		}

		// no scheduler runs in these contexts: the test's calls are the timer's
		@Scheduled(fixedRate = 3000)
		@LeaderOnly(atMostEvery = "3s")
		public void tick() {
			this.starts.add(this.replica, "tick");
		}

		@LeaderOnly
		public void plainReport() {
			this.starts.add(this.replica, "plainReport");
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	static class Timers {

	}

	static final class SeenThreads {

		final List<String> threads = new CopyOnWriteArrayList<>();

	}

	/**
	 * Advice in front of {@code @LeaderOnly}'s on the jobs, as a {@code @Transactional} would
	 * be: it notes the thread of every call it sees.
	 */
	@Configuration(proxyBeanMethods = false)
	static class AdviceBeforeLeaderOnly {

		@Bean
		static DefaultAdvisorAutoProxyCreator autoProxyCreator() {
			return new DefaultAdvisorAutoProxyCreator();
		}

		@Bean
		static Advisor threadsSeen(SeenThreads advised) {
			return new DefaultPointcutAdvisor(new NameMatchMethodPointcut() {
				@Override
				public boolean matches(Method method, Class<?> targetClass) {
					return Jobs.class.isAssignableFrom(targetClass) && "tick".equals(method.getName());
				}
			}, (MethodInterceptor) (invocation) -> {
				advised.threads.add(Thread.currentThread().getName());
				return invocation.proceed();
			});
		}

	}

	static class Ticker {

		static final Duration WINDOW = Duration.ofMillis(800);

		private final List<Instant> starts;

		private final List<String> runBy;

		private LeaderElector elector;

		Ticker(List<Instant> starts, List<String> runBy) {
			this.starts = starts;
			this.runBy = runBy;
		}

		@Autowired
		void setElector(LeaderElector elector) {
			this.elector = elector;
		}

		@Scheduled(fixedRate = 1000)
		@LeaderOnly(atMostEvery = "800ms")
		public void tick() {
			// the start the elector recorded before the body ran
			this.starts.add(this.elector.windows("default").get(0).lastStart());
			this.runBy.add(this.elector.identity());
		}

	}

}
