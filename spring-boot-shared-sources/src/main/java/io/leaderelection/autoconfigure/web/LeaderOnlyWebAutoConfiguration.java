package io.leaderelection.autoconfigure.web;

import io.leaderelection.LeaderElector;
import io.leaderelection.autoconfigure.LeaderElectionSettings;
import io.leaderelection.autoconfigure.leaderonly.LeaderOnlyAutoConfiguration;
import io.leaderelection.autoconfigure.leaderonly.LeaderOnlyRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.reactive.result.method.annotation.RequestMappingHandlerAdapter;
import org.springframework.web.servlet.HandlerExceptionResolver;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

import java.util.List;

/**
 * Auto-configuration of leader-only web requests: a request to a handler that is
 * {@code @LeaderOnly} is refused off the leader (503, {@code Retry-After}) before it runs, in
 * Spring MVC and in Spring WebFlux, and the leader's answers name the holder
 * ({@value LeaderOnlyRequests#HOLDER_HEADER}) and the fencing token
 * ({@value LeaderOnlyRequests#FENCING_TOKEN_HEADER}).
 */
@AutoConfiguration(after = LeaderOnlyAutoConfiguration.class)
@ConditionalOnBean(LeaderOnlyRegistry.class)
public class LeaderOnlyWebAutoConfiguration {

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
	@ConditionalOnClass(WebMvcConfigurer.class)
	static class ServletConfiguration {

		@Bean
		LeaderOnlyHandlerInterceptor leaderOnlyHandlerInterceptor(LeaderElector leaderElector,
				LeaderOnlyRegistry leaderOnlyRegistry, LeaderElectionSettings leaderElectionSettings) {
			return new LeaderOnlyHandlerInterceptor(
					new LeaderOnlyRequests(leaderElector, leaderOnlyRegistry, leaderElectionSettings));
		}

		@Bean
		WebMvcConfigurer leaderOnlyWebMvcConfigurer(LeaderOnlyHandlerInterceptor leaderOnlyHandlerInterceptor) {
			return new WebMvcConfigurer() {

				@Override
				public void addInterceptors(InterceptorRegistry registry) {
					registry.addInterceptor(leaderOnlyHandlerInterceptor);
				}

				@Override
				public void extendHandlerExceptionResolvers(List<HandlerExceptionResolver> resolvers) {
					resolvers.add(leaderOnlyHandlerInterceptor);
				}

			};
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
	@ConditionalOnClass(RequestMappingHandlerAdapter.class)
	static class ReactiveConfiguration {

		@Bean
		LeaderOnlyHandlerAdapter leaderOnlyHandlerAdapter(LeaderElector leaderElector,
				LeaderOnlyRegistry leaderOnlyRegistry, LeaderElectionSettings leaderElectionSettings,
				ObjectProvider<RequestMappingHandlerAdapter> requestMappingHandlerAdapter) {
			return new LeaderOnlyHandlerAdapter(
					new LeaderOnlyRequests(leaderElector, leaderOnlyRegistry, leaderElectionSettings),
					requestMappingHandlerAdapter);
		}

		@Bean
		LeaderOnlyWebFilter leaderOnlyWebFilter() {
			return new LeaderOnlyWebFilter();
		}

	}

}
