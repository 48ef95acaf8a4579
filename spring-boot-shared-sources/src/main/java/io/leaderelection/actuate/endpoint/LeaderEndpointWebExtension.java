package io.leaderelection.actuate.endpoint;

import io.leaderelection.actuate.endpoint.LeaderEndpoint.StepDownDescriptor;

import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

/**
 * Answers a step-down from an unknown election with 404 over HTTP: a delete operation that
 * returns nothing would otherwise be answered with 204, as if it had succeeded.
 */
@EndpointWebExtension(endpoint = LeaderEndpoint.class)
public class LeaderEndpointWebExtension {

	private final LeaderEndpoint delegate;

	public LeaderEndpointWebExtension(LeaderEndpoint delegate) {
		this.delegate = delegate;
	}

	@DeleteOperation
	public WebEndpointResponse<StepDownDescriptor> stepDown(@Selector String election) {
		StepDownDescriptor status = this.delegate.stepDown(election);
		return (status != null) ? new WebEndpointResponse<>(status)
				: new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
	}

}
