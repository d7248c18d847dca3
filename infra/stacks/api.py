"""The HTTP API: every route goes to the chat function; throttling, CORS and access logs."""

from __future__ import annotations

import json

import jsii
from aws_cdk import Duration
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_apigatewayv2 as apigwv2
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk.aws_apigatewayv2_integrations import HttpLambdaIntegration
from constructs import Construct

from infra.settings import EnvironmentSettings
from infra.stacks.nag import acknowledge

CORS_METHODS = [
    apigwv2.CorsHttpMethod.GET,
    apigwv2.CorsHttpMethod.POST,
    apigwv2.CorsHttpMethod.PUT,
    apigwv2.CorsHttpMethod.PATCH,
    apigwv2.CorsHttpMethod.DELETE,
]
# Ids and outcomes only: paths hold ids, never message content, and bodies are not logged.
ACCESS_LOG_FIELDS = {
    "requestId": "$context.requestId",
    "ip": "$context.identity.sourceIp",
    "requestTime": "$context.requestTime",
    "routeKey": "$context.routeKey",
    "path": "$context.path",
    "status": "$context.status",
    "responseLength": "$context.responseLength",
    "integrationLatency": "$context.integrationLatency",
    "integrationError": "$context.integrationErrorMessage",
}


class Api(Construct):
    def __init__(self, scope: Construct, id: str, *, settings: EnvironmentSettings, handler: lambda_.IFunction) -> None:
        super().__init__(scope, id)
        self.access_logs = _access_log_group(self, settings)
        self.http_api = apigwv2.HttpApi(
            self,
            "HttpApi",
            api_name=f"{settings.prefix}-api",
            create_default_stage=False,  # created below, with throttling and access logs
            default_integration=HttpLambdaIntegration("Chat", handler),
            cors_preflight=apigwv2.CorsPreflightOptions(
                allow_origins=list(settings.frontend_origins),
                allow_methods=CORS_METHODS,
                allow_headers=["authorization", "content-type"],
                max_age=Duration.hours(1),
            ),
        )
        self.stage = apigwv2.HttpStage(
            self,
            "DefaultStage",
            http_api=self.http_api,
            auto_deploy=True,
            throttle=apigwv2.ThrottleSettings(rate_limit=settings.throttle_rate, burst_limit=settings.throttle_burst),
            access_log_settings=AccessLogs(self.access_logs),
        )
        acknowledge(
            self.http_api,
            "APIG4",
            "Authorization is the app's: FastAPI verifies the JWT on every route that needs "
            "it, while health, register, login and refresh are public by design.",
        )

    @property
    def url(self) -> str:
        return self.stage.url


@jsii.implements(apigwv2.IAccessLogSettings)
class AccessLogs:
    def __init__(self, log_group: logs.ILogGroup) -> None:
        self._destination = apigwv2.LogGroupLogDestination(log_group)

    @property
    def destination(self) -> apigwv2.IAccessLogDestination:
        return self._destination

    @property
    def format(self) -> apigw.AccessLogFormat:
        return apigw.AccessLogFormat.custom(json.dumps(ACCESS_LOG_FIELDS))


def _access_log_group(scope: Construct, settings: EnvironmentSettings) -> logs.LogGroup:
    return logs.LogGroup(scope, "AccessLogs", retention=settings.log_retention, removal_policy=settings.removal_policy)
