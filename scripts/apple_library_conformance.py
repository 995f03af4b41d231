#!/usr/bin/env python3
"""Checks that Apple's own Python library accepts everything the iapdesk demo server says.

Starts `iapdesk serve-demo`, points Apple's AppStoreServerAPIClient at it, calls every endpoint
(rows 1-15 of the App Store Server API), and verifies every JWS it receives with Apple's
SignedDataVerifier (demo root, online checks off). Exits non-zero on the first disagreement.

Usage: apple_library_conformance.py PATH_TO_IAPDESK
"""
import re
import warnings
import subprocess
import sys
import tempfile
import time
import uuid

from appstoreserverlibrary.api_client import APIException, AppStoreServerAPIClient, GetTransactionHistoryVersion
from appstoreserverlibrary.models.ConsumptionRequest import ConsumptionRequest
from appstoreserverlibrary.models.AccountTenure import AccountTenure
from appstoreserverlibrary.models.ConsumptionRequestV1 import ConsumptionRequestV1
from appstoreserverlibrary.models.ConsumptionStatus import ConsumptionStatus
from appstoreserverlibrary.models.DeliveryStatusV1 import DeliveryStatusV1
from appstoreserverlibrary.models.LifetimeDollarsPurchased import LifetimeDollarsPurchased
from appstoreserverlibrary.models.LifetimeDollarsRefunded import LifetimeDollarsRefunded
from appstoreserverlibrary.models.Platform import Platform
from appstoreserverlibrary.models.PlayTime import PlayTime
from appstoreserverlibrary.models.RefundPreferenceV1 import RefundPreferenceV1
from appstoreserverlibrary.models.UserStatus import UserStatus
from appstoreserverlibrary.models.DeliveryStatus import DeliveryStatus
from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.models.ExtendReasonCode import ExtendReasonCode
from appstoreserverlibrary.models.ExtendRenewalDateRequest import ExtendRenewalDateRequest
from appstoreserverlibrary.models.MassExtendRenewalDateRequest import MassExtendRenewalDateRequest
from appstoreserverlibrary.models.NotificationHistoryRequest import NotificationHistoryRequest
from appstoreserverlibrary.models.Status import Status
from appstoreserverlibrary.models.TransactionHistoryRequest import Order, ProductType, TransactionHistoryRequest
from appstoreserverlibrary.models.UpdateAppAccountTokenRequest import UpdateAppAccountTokenRequest
from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier

checked = {"calls": 0, "jws": 0}


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def start_demo(binary, folder):
    process = subprocess.Popen([binary, "serve-demo", "--port", "0", "--data-dir", folder],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    fields = {}
    deadline = time.time() + 60
    while time.time() < deadline:
        line = process.stdout.readline()
        if not line:
            if process.poll() is not None:
                fail("serve-demo exited before it was ready")
            continue
        match = re.match(r"^(Base URL|Sandbox URL|Key ID|Issuer ID|Bundle ID|App Apple ID|Key file|Root certificate)\s{2,}(.+)$", line.strip())
        if match:
            fields[match.group(1)] = match.group(2).strip()
        if "Seed IDs" in line:
            return process, fields
    fail("serve-demo did not print its settings in time")


def seeds(base_url):
    import json
    import urllib.request
    with urllib.request.urlopen(base_url + "/demo/seed-ids.json", timeout=10) as response:
        return json.load(response)


def client_for(fields, base_url):
    with open(fields["Key file"], "rb") as key:
        signing_key = key.read()
    client = AppStoreServerAPIClient(signing_key, fields["Key ID"], fields["Issuer ID"], fields["Bundle ID"], Environment.PRODUCTION)
    # The library has no base-URL option; its documented hosts are replaced by the demo's.
    client._base_url = base_url
    return client


def call(name, function, *args):
    checked["calls"] += 1
    try:
        return function(*args)
    except APIException as error:
        fail(f"{name}: HTTP {error.http_status_code}, error {error.raw_api_error}: {error.error_message}")
    except Exception as error:  # a parsing failure inside Apple's library
        fail(f"{name}: {type(error).__name__}: {error}")


def expect_error(name, code, function, *args):
    checked["calls"] += 1
    try:
        function(*args)
    except APIException as error:
        if error.raw_api_error != code:
            fail(f"{name}: expected error {code}, got HTTP {error.http_status_code} {error.raw_api_error}")
        return
    fail(f"{name}: expected error {code}, got success")


def verify(verifier, kind, jws):
    checked["jws"] += 1
    try:
        if kind == "transaction":
            return verifier.verify_and_decode_signed_transaction(jws)
        if kind == "renewal":
            return verifier.verify_and_decode_renewal_info(jws)
        if kind == "app":
            return verifier.verify_and_decode_app_transaction(jws)
        return verifier.verify_and_decode_notification(jws)
    except Exception as error:
        fail(f"Apple's verifier rejected a {kind} JWS: {error!r}")


def check_environment(fields, base_url, environment, verifier):
    client = client_for(fields, base_url)
    data = seeds(base_url)
    original = data["originalTransactionIds"][0]
    busiest = next((c["originalTransactionId"] for c in data["customers"] if "500+" in c["scenario"]), original)
    active = data["activeSubscriptionOriginalTransactionIds"][0]

    info = call("get_transaction_info", client.get_transaction_info, original)
    verify(verifier, "transaction", info.signedTransactionInfo)

    revision = None
    pages = 0
    while True:
        history = call("get_transaction_history", client.get_transaction_history, busiest, revision,
                       TransactionHistoryRequest(sort=Order.DESCENDING, productTypes=[ProductType.AUTO_RENEWABLE, ProductType.CONSUMABLE],
                                                 revoked=False), GetTransactionHistoryVersion.V2)
        pages += 1
        for jws in history.signedTransactions or []:
            verify(verifier, "transaction", jws)
        if not history.hasMore:
            break
        revision = history.revision
    call("get_transaction_history v1", client.get_transaction_history, original, None, TransactionHistoryRequest(), GetTransactionHistoryVersion.V1)

    statuses = call("get_all_subscription_statuses", client.get_all_subscription_statuses, active, [Status.ACTIVE, Status.EXPIRED])
    for group in statuses.data or []:
        for item in group.lastTransactions or []:
            verify(verifier, "transaction", item.signedTransactionInfo)
            verify(verifier, "renewal", item.signedRenewalInfo)

    for refunded in data["refundedTransactionIds"][:2]:
        refunds = call("get_refund_history", client.get_refund_history, refunded, None)
        for jws in refunds.signedTransactions or []:
            verify(verifier, "transaction", jws)

    if environment == Environment.PRODUCTION:
        order = call("look_up_order_id", client.look_up_order_id, data["orderIds"][0])
        for jws in order.signedTransactions or []:
            verify(verifier, "transaction", jws)
        missing = call("look_up_order_id (unknown)", client.look_up_order_id, "ZZZZZZZZZZ")
        if missing.status is None:
            fail("look_up_order_id: status not parsed for an unknown order")

    app = call("get_app_transaction_info", client.get_app_transaction_info, original)
    verify(verifier, "app", app.signedAppTransactionInfo)

    now = int(time.time() * 1000)
    token = None
    count = 0
    while True:
        notes = call("get_notification_history", client.get_notification_history, token,
                     NotificationHistoryRequest(startDate=now - 29 * 86_400_000, endDate=now))
        for item in notes.notificationHistory or []:
            verify(verifier, "notification", item.signedPayload)
            count += 1
        if not notes.hasMore:
            break
        token = notes.paginationToken

    extended = call("extend_subscription_renewal_date", client.extend_subscription_renewal_date, active,
                    ExtendRenewalDateRequest(extendByDays=1, extendReasonCode=ExtendReasonCode.CUSTOMER_SATISFACTION,
                                             requestIdentifier=str(uuid.uuid4())))
    if not extended.success:
        fail("extend_subscription_renewal_date: success was not true")
    request_id = str(uuid.uuid4())
    product = data["subscriptionProductIds"][0]
    call("extend_renewal_date_for_all_active_subscribers", client.extend_renewal_date_for_all_active_subscribers,
         MassExtendRenewalDateRequest(extendByDays=1, extendReasonCode=ExtendReasonCode.SERVICE_ISSUE_OR_OUTAGE,
                                      requestIdentifier=request_id, productId=product))
    call("get_status_of_subscription_renewal_date_extensions", client.get_status_of_subscription_renewal_date_extensions,
         request_id, product)

    test = call("request_test_notification", client.request_test_notification)
    status = None
    for _ in range(50):
        try:
            status = client.get_test_notification_status(test.testNotificationToken)
            break
        except APIException as error:
            if error.raw_api_error != 4040008:
                fail(f"get_test_notification_status: {error.raw_api_error}")
            time.sleep(0.1)
    checked["calls"] += 1
    if status is None or not status.sendAttempts:
        fail("get_test_notification_status: no send attempts")
    verify(verifier, "notification", status.signedPayload)

    consumable = data["consumableTransactionIds"][0]
    call("send_consumption_information", client.send_consumption_information, consumable,
         ConsumptionRequest(customerConsented=True, deliveryStatus=DeliveryStatus.DELIVERED, sampleContentProvided=False,
                            consumptionPercentage=10000))
    call("send_consumption_data", client.send_consumption_data, consumable,
         ConsumptionRequestV1(customerConsented=True, consumptionStatus=ConsumptionStatus.NOT_CONSUMED, platform=Platform.APPLE,
                              sampleContentProvided=False, deliveryStatus=DeliveryStatusV1.DELIVERED_AND_WORKING_PROPERLY,
                              appAccountToken="", accountTenure=AccountTenure.ZERO_TO_THREE_DAYS, playTime=PlayTime.ZERO_TO_FIVE_MINUTES,
                              lifetimeDollarsRefunded=LifetimeDollarsRefunded.ZERO_DOLLARS,
                              lifetimeDollarsPurchased=LifetimeDollarsPurchased.ZERO_DOLLARS, userStatus=UserStatus.ACTIVE,
                              refundPreference=RefundPreferenceV1.PREFER_GRANT))
    call("set_app_account_token", client.set_app_account_token, original,
         UpdateAppAccountTokenRequest(appAccountToken=str(uuid.uuid4())))
    call("finish_transaction", client.finish_transaction, consumable)

    expect_error("get_transaction_info (malformed)", 4000006, client.get_transaction_info, "abc")
    expect_error("get_transaction_info (unknown)", 4040010, client.get_transaction_info, "2000000499999999")
    expect_error("extend (too many days)", 4000009, client.extend_subscription_renewal_date, active,
                 ExtendRenewalDateRequest(extendByDays=91, extendReasonCode=ExtendReasonCode.OTHER, requestIdentifier="x"))
    print(f"{environment.value}: history {pages} pages, {count} notifications, all parsed and verified")


def main():
    warnings.simplefilter("ignore", DeprecationWarning)
    if len(sys.argv) != 2:
        fail(__doc__)
    with tempfile.TemporaryDirectory() as folder:
        process, fields = start_demo(sys.argv[1], folder)
        try:
            with open(fields["Root certificate"], "rb") as root:
                root_der = root.read()
            production = SignedDataVerifier([root_der], False, Environment.PRODUCTION, fields["Bundle ID"], int(fields["App Apple ID"]))
            sandbox = SignedDataVerifier([root_der], False, Environment.SANDBOX, fields["Bundle ID"])
            check_environment(fields, fields["Base URL"], Environment.PRODUCTION, production)
            check_environment(fields, fields["Sandbox URL"], Environment.SANDBOX, sandbox)
        finally:
            process.terminate()
            process.wait(timeout=20)
    print(f"Apple's Python library parsed {checked['calls']} answers and verified {checked['jws']} JWS.")
    print(f"conformance: {checked['calls']} passed, 0 failed")


if __name__ == "__main__":
    main()
