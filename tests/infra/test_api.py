"""The HTTP API in front of the chat function."""

from __future__ import annotations

import json
from typing import Any

from tests.infra.synth import Synth


def test_every_route_goes_to_the_chat_function(each: Synth) -> None:
    chat_id, _ = each.function("chat")
    each.template.has_resource_properties("AWS::ApiGatewayV2::Route", {"RouteKey": "$default"})
    each.template.has_resource_properties(
        "AWS::ApiGatewayV2::Integration",
        {
            "IntegrationType": "AWS_PROXY",
            "PayloadFormatVersion": "2.0",
            "IntegrationUri": {"Fn::GetAtt": [chat_id, "Arn"]},
        },
    )


def test_cors_allows_only_the_configured_frontend(dev: Synth, prod: Synth) -> None:
    assert cors(dev)["AllowOrigins"] == ["http://localhost:8000", "http://127.0.0.1:8000"]
    assert cors(prod)["AllowOrigins"] == ["https://chat.example.com"]
    assert cors(prod)["AllowHeaders"] == ["authorization", "content-type"]
    assert set(cors(prod)["AllowMethods"]) == {"GET", "POST", "PUT", "PATCH", "DELETE"}


def cors(synth: Synth) -> Any:
    (api,) = synth.resources("AWS::ApiGatewayV2::Api").values()
    assert api["Properties"]["ProtocolType"] == "HTTP"
    return api["Properties"]["CorsConfiguration"]


def test_the_default_stage_is_throttled_per_environment(dev: Synth, prod: Synth) -> None:
    assert stage(dev)["DefaultRouteSettings"] == {"ThrottlingRateLimit": 20, "ThrottlingBurstLimit": 40}
    assert stage(prod)["DefaultRouteSettings"] == {"ThrottlingRateLimit": 200, "ThrottlingBurstLimit": 400}


def stage(synth: Synth) -> Any:
    (found,) = synth.resources("AWS::ApiGatewayV2::Stage").values()
    assert found["Properties"]["StageName"] == "$default"
    assert found["Properties"]["AutoDeploy"] is True
    return found["Properties"]


def test_access_logs_record_ids_and_outcomes_but_no_bodies(each: Synth) -> None:
    settings = stage(each)["AccessLogSettings"]
    log_group_id, attribute = settings["DestinationArn"]["Fn::GetAtt"]
    assert (log_group_id.startswith("ApiAccessLogs"), attribute) == (True, "Arn")
    fields = json.loads(settings["Format"])
    assert fields["requestId"] == "$context.requestId"
    assert not any("body" in value.lower() for value in fields.values())


def test_the_api_url_is_an_output(each: Synth) -> None:
    each.template.has_output("ApiUrl", {})
