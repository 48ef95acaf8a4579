package io.leaderelection.test;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.leaderelection.LeaderOnly;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.event.EventListener;
import org.springframework.integration.leader.event.AbstractLeaderEvent;
import org.springframework.integration.leader.event.OnGrantedEvent;
import org.springframework.integration.leader.event.OnRevokedEvent;
import org.springframework.stereotype.Component;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** An application as a user writes it: leader-only calls, a gated bean, leadership listeners, a controller. */
@SpringBootApplication
public class OrdersApplication {

	@Component
	public static class Reconciler {

		private final List<String> reconciled = new CopyOnWriteArrayList<>();

		@LeaderOnly
		public void reconcile(String order) {
			this.reconciled.add(order);
		}

		public List<String> reconciled() {
			return this.reconciled;
		}

	}

	/** Polls for invoices while this replica leads the billing election. */
	@Component
	@LeaderOnly("billing")
	public static class InvoicePoller implements SmartLifecycle {

		private volatile boolean running;

		@Override
		public void start() {
			this.running = true;
		}

		@Override
		public void stop() {
			this.running = false;
		}

		@Override
		public boolean isRunning() {
			return this.running;
		}

	}

	@Component
	public static class LeadershipEvents {

		private final List<String> heard = new CopyOnWriteArrayList<>();

		public List<String> heard() {
			return this.heard;
		}

		@EventListener
		void on(AbstractLeaderEvent event) {
			if (event instanceof OnGrantedEvent || event instanceof OnRevokedEvent) {
				this.heard.add(((event instanceof OnGrantedEvent) ? "granted " : "revoked ") + event.getRole());
			}
		}

	}

	@RestController
	public static class OrdersController {

		@GetMapping("/orders")
		String orders() {
			return "orders";
		}

	}

}
