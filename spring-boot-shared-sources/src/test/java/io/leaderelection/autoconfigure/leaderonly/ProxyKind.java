package io.leaderelection.autoconfigure.leaderonly;

import org.springframework.aop.support.AopUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How a {@code @LeaderOnly} bean is proxied, chosen with {@code spring.aop.proxy-target-class}.
 */
enum ProxyKind {

	/** A JDK proxy of the bean's interfaces. */
	INTERFACE(true, "spring.aop.proxy-target-class=false"),

	/** A CGLIB subclass proxy, Spring Boot's default. */
	CLASS_BY_DEFAULT(false),

	/** A CGLIB subclass proxy, asked for explicitly. */
	CLASS(false, "spring.aop.proxy-target-class=true");

	private final boolean jdk;

	private final String[] properties;

	ProxyKind(boolean jdk, String... properties) {
		this.jdk = jdk;
		this.properties = properties;
	}

	String[] properties() {
		return this.properties.clone();
	}

	/** Asserts that the bean is a proxy of this kind, so a test shows which one ran. */
	void assertProxies(Object bean) {
		if (this.jdk) {
			assertThat(AopUtils.isJdkDynamicProxy(bean)).as("JDK proxy: %s", bean.getClass()).isTrue();
		}
		else {
			assertThat(AopUtils.isCglibProxy(bean)).as("CGLIB proxy: %s", bean.getClass()).isTrue();
		}
	}

}
