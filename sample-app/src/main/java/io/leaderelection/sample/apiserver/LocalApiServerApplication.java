package io.leaderelection.sample.apiserver;

import java.net.BindException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.context.annotation.Bean;

/**
 * Runs the sample's local API server on its own, on {@code sample.local-api-server.port} (7070
 * unless told otherwise), until it is stopped: replicas of the sample started without a cluster
 * find that port taken and join it, so that any of them can stop without ending the election for
 * the others.
 * <p>
 * A Spring application without auto-configuration, for Spring Boot's logging and command-line
 * properties; not a {@code @Configuration} class, so that the sample's component scan leaves it
 * out.
 */
public class LocalApiServerApplication {

	private static final Logger logger = LoggerFactory.getLogger(LocalApiServerApplication.class);

	public static void main(String[] args) {
		application().run(args);
	}

	/** The application {@link #main} runs: no web server, kept alive until stopped. */
	public static SpringApplication application() {
		SpringApplication application = new SpringApplication(LocalApiServerApplication.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		application.setBannerMode(Banner.Mode.OFF);
		application.setKeepAlive(true);
		return application;
	}

	@Bean(destroyMethod = "close")
	LocalApiServer localApiServer(
			@Value("${sample.local-api-server.port:" + LocalApiServer.DEFAULT_PORT + "}") int port) {
		try {
			LocalApiServer server = LocalApiServer.start(port);
			logger.info("Local API server on http://127.0.0.1:{}: replicas started with no cluster configured and "
					+ "sample.local-api-server.port={} join it. See its Leases with: {}", server.port(),
					server.port(), LocalApiServer.kubectlGetLeases(server.port()));
			return server;
		}
		catch (BindException ex) {
			throw new LocalApiServerPortTakenException(port, ex);
		}
	}

}
