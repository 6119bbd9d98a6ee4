java -Xmx16g -jar /opt/gatk/gatk.jar HaplotypeCaller
